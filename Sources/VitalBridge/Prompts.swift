import LayeredProtocol
import VitalCore

/// What the user answered a question the hub asked.
public enum PromptAnswer<Value: Sendable>: Sendable {
    /// The user answered.
    case answered(Value)
    /// The user said no or closed the dialog: the stage is cancelled (`ERROR_CANCEL`).
    case declined
    /// Nobody can be asked: no terminal, no graphical session, a script that says nothing of it. A decision the
    /// user must make is then refused by name, never taken for them.
    case unavailable
}

/// A device the user may choose: found by a scan (with its signal strength), or one the home has added.
public struct DeviceCandidate: Hashable, Sendable, CustomStringConvertible {
    public var mac: MACAddress
    /// The advertised name (`BP5 11070`), or the model's for a device of the home.
    public var name: String
    /// The signal strength a scan heard, in dBm.
    public var rssi: Int?

    public init(mac: MACAddress, name: String, rssi: Int? = nil) {
        self.mac = mac
        self.name = name
        self.rssi = rssi
    }

    /// `004D3208D2F4  BP5 11070  -48 dBm`.
    public var description: String {
        "\(mac)  \(name)" + (rssi.map { "  \($0) dBm" } ?? "")
    }
}

/// The user's side of a request: the prompts, the camera and the cancel button. Every decision the user must make
/// goes through it; one that nobody can make is answered ``PromptAnswer/unavailable``.
public protocol HubUser: Sendable {
    /// Whether the user cancels `stage` (closes the scan, stops the sync) before it completes.
    func cancels(_ stage: Stage) async -> Bool
    /// The connect prompt (`popflag=1`) for `device`.
    func confirmConnect(to device: MACAddress) async -> PromptAnswer<Void>
    /// The text the camera reads from a device's QR code (`addtype=1`).
    func scanQRCode() async -> PromptAnswer<String>
    /// Which of `candidates` (at least two, strongest signal first) the user picks.
    func chooseDevice(among candidates: [DeviceCandidate]) async -> PromptAnswer<MACAddress>
}

/// Nobody to ask: a request from a program with no terminal and no graphical session. Nothing is cancelled, and
/// every question is ``PromptAnswer/unavailable``.
public struct NobodyToAsk: HubUser {
    public init() {}

    public func cancels(_ stage: Stage) async -> Bool { false }
    public func confirmConnect(to device: MACAddress) async -> PromptAnswer<Void> { .unavailable }
    public func scanQRCode() async -> PromptAnswer<String> { .unavailable }
    public func chooseDevice(among candidates: [DeviceCandidate]) async -> PromptAnswer<MACAddress> { .unavailable }
}

extension PromptAnswer {
    /// This answer made into another: `transform` reads an answer's value; a decline, or nobody to ask, stays so.
    public func flatMap<Other>(_ transform: (Value) -> PromptAnswer<Other>) -> PromptAnswer<Other> {
        switch self {
        case .answered(let value): transform(value)
        case .declined: .declined
        case .unavailable: .unavailable
        }
    }
}
