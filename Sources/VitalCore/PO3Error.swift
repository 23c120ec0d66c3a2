/// The PO3's error IDs (`PO3ErrorID` of the PO3 SDK document, with the SDK headers' 111 for the authentication).
public enum PO3Error: Int, Hashable, Sendable, CaseIterable {
    /// Bluetooth communication error.
    case communication = 0
    /// Flash (data) access error.
    case flashAccess = 1
    /// Irregular hardware error.
    case hardware = 2
    /// The SpO2 or pulse rate is beyond the measurement range.
    case outOfRange = 3
    /// Unknown interference detected.
    case interference = 4
    /// Sending a command failed.
    case sendFailed = 5
    /// The device disconnected.
    case disconnected = 6
    /// No data (`PO3DataZero`): the hub never sends it, an empty history is a success with `result=[]`.
    case noData = 7
    /// User authentication failed (`PO3UserInvalidate`): 111 as the hub sends it, 8 in the document's enum.
    case userAuthentication = 111

    /// What the error means, as `vitalbridge callback` and the device errors say it.
    public var message: String {
        switch self {
        case .communication: "Bluetooth communication error"
        case .flashAccess: "flash access error"
        case .hardware: "hardware error"
        case .outOfRange: "SpO2 or pulse rate out of the measurement range"
        case .interference: "unknown interference"
        case .sendFailed: "send failed"
        case .disconnected: "device disconnected"
        case .noData: "no data"
        case .userAuthentication: "user authentication failed"
        }
    }
}
