import VitalCore

/// The operation a caller asks for (`cmd`, the spec's `LayeredAction`).
public enum LayeredAction: Int, CaseIterable, Hashable, Sendable {
    /// `0`: take a live measurement on a known device (`mac` required).
    case measure = 0
    /// `1`: add a device by Bluetooth scan or QR code.
    case add = 1
    /// `2`: read the records stored on a known device (`mac` required).
    case sync = 2
    /// `3`: add a device, then measure with it.
    case addMeasure = 3
    /// `4`: add a device, then sync its stored records.
    case addSync = 4
    /// `5`: add a device, sync its stored records, then measure.
    case addSyncMeasure = 5
    /// `6`: sync the stored records of a known device, then measure (`mac` required).
    case syncMeasure = 6

    /// The stages the action runs, in order.
    public var stages: [Stage] {
        switch self {
        case .measure: [.measure]
        case .add: [.add]
        case .sync: [.sync]
        case .addMeasure: [.add, .measure]
        case .addSync: [.add, .sync]
        case .addSyncMeasure: [.add, .sync, .measure]
        case .syncMeasure: [.sync, .measure]
        }
    }

    /// Whether the action has `stage`.
    public func includes(_ stage: Stage) -> Bool {
        switch (self, stage) {
        case (.measure, .measure), (.add, .add), (.sync, .sync): true
        case (.addMeasure, .add), (.addMeasure, .measure): true
        case (.addSync, .add), (.addSync, .sync): true
        case (.addSyncMeasure, _): true
        case (.syncMeasure, .sync), (.syncMeasure, .measure): true
        default: false
        }
    }

    /// Whether the action adds a device first (`addtype` required, `mac` not allowed).
    public var addsDevice: Bool { includes(.add) }

    /// Whether the action works on a device the caller names by `mac`.
    public var requiresMAC: Bool { !addsDevice }

    /// Whether the callback answers with a single status (`0`, `1`, `2`) rather than a composite one.
    public var hasSingleStatus: Bool { rawValue <= LayeredAction.sync.rawValue }

    /// Whether the action both syncs and measures, so its result is `{"measureresult":[…],"syncresult":[…]}`.
    public var hasCombinedResult: Bool { includes(.sync) && includes(.measure) }
}

/// How a device is added (`addtype`, the spec's `LayeredAddType`).
public enum AddType: Int, CaseIterable, Hashable, Sendable {
    /// `0`: find the paired device of the requested model by Bluetooth scan.
    case scan = 0
    /// `1`: read the device's MAC from its QR code.
    case qrCode = 1
}

/// Whether the hub asks the user before it connects to a scanned device (`popflag`).
public enum PopFlag: Int, CaseIterable, Hashable, Sendable {
    /// `0`: connect without a prompt.
    case noPrompt = 0
    /// `1`: show a prompt, which the user may decline.
    case prompt = 1
}

/// The platform a request came from; it decides the echo's name case, whether `appid` is required and the
/// default URL budget.
public enum Platform: String, CaseIterable, Hashable, Sendable {
    case ios
    case android

    /// The longest callback URL the platform's URL opener is trusted with, in characters.
    ///
    /// iOS: 20,000, as the spec says. Android: 200,000, our choice, well below the 1 MB Binder transaction
    /// limit an `Intent` travels through (two bytes a character).
    public var defaultCallbackBudget: Int {
        switch self {
        case .ios: 20_000
        case .android: 200_000
        }
    }
}

/// The protocol version the hub speaks (`ver`): `100`, the only one the spec defines.
public let layeredProtocolVersion = 100

/// The URL scheme the layered app answers to.
public let layeredAppScheme = "ihealth-layer"

extension Stage {
    /// The bit position of the stage's nibble in a composite ``ActionStatus``.
    var statusShift: Int {
        switch self {
        case .add: 4
        case .sync: 8
        case .measure: 12
        }
    }
}
