import VitalCore

/// Why a device operation did not complete.
///
/// ``deviceCode`` carries the device family's own numeric error code when the device reported one (a BP cuff
/// error 3, a PO3 error 6), so the hub can answer `ERROR-<devicemodel>-<code>`. The description never contains a
/// health value.
public struct DeviceError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure; open, so later versions may add kinds.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// No device of the model, or with the MAC, is in range (or paired, for an add by scan).
        public static let notFound = Code(rawValue: "notFound")
        /// The link could not be set up.
        public static let connectionFailed = Code(rawValue: "connectionFailed")
        /// The link dropped during the operation.
        public static let disconnected = Code(rawValue: "disconnected")
        /// The user cancelled (stopped the measurement, declined the connect prompt).
        public static let cancelled = Code(rawValue: "cancelled")
        /// The device reported an error; ``DeviceError/deviceCode`` has its code.
        public static let deviceReported = Code(rawValue: "deviceReported")
        /// The device sent bytes or answers the protocol does not allow.
        public static let protocolViolation = Code(rawValue: "protocolViolation")
        /// The user authentication a device requires failed (PO3 results 5–8).
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// The operation is not one the model can do.
        public static let unsupported = Code(rawValue: "unsupported")
        /// Storing what the device sent failed; the device was not told it may delete anything.
        public static let storeFailed = Code(rawValue: "storeFailed")
        /// Another request is using the device.
        public static let busy = Code(rawValue: "busy")
        /// The device sent nothing within the time the hub waits for it.
        public static let timedOut = Code(rawValue: "timedOut")
        /// The Bluetooth stack failed in a way no other kind describes (a BlueZ `org.bluez.Error.Failed`).
        public static let transportFailed = Code(rawValue: "transportFailed")
        /// A device with a User Data Service refused a consent code: it is not that user's (UDS "user not
        /// authorized").
        public static let userNotAuthorized = Code(rawValue: "userNotAuthorized")
        /// A device with a User Data Service has no user by that index (deleted on the device, or never there).
        public static let unknownUser = Code(rawValue: "unknownUser")
        /// A device with a User Data Service has no free user slot to register a new user in.
        public static let noFreeUser = Code(rawValue: "noFreeUser")
        /// A user's Database Change Increment on the device is lower than the one the hub last wrote: the user was
        /// registered again, or the device reset.
        public static let userDataRewound = Code(rawValue: "userDataRewound")
    }

    public var code: Code
    /// The device family's numeric error code, when the device reported one.
    public var deviceCode: Int?
    /// One line, without health values.
    public var message: String

    public init(_ code: Code, deviceCode: Int? = nil, message: String) {
        self.code = code
        self.deviceCode = deviceCode
        self.message = message
    }

    public var description: String {
        if let deviceCode { "\(code) (device code \(deviceCode)): \(message)" } else { "\(code): \(message)" }
    }
}

/// The numeric error codes the device families report (`../spec/README.md`).
public enum DeviceErrorCodes {
    /// PO3 error IDs, from VitalCore's one table (`PO3Error`): 0 Bluetooth communication … 111 user
    /// authentication failed.
    public static let pulseOximeter = [Int: String](
        uniqueKeysWithValues: PO3Error.allCases.map { ($0.rawValue, $0.message) })
    /// Blood pressure monitors.
    public static let bloodPressure: [Int: String] = [
        0: "arm or wrist movement", 1: "no systolic", 2: "no diastolic", 3: "cuff blocked or too tight",
        4: "cuff leak or too loose", 5: "cuff pressure over 300 mmHg", 13: "low battery",
        15: "systolic over 260 or diastolic over 199", 16: "systolic under 60 or diastolic under 40", 17: "movement",
    ]
    /// Glucose meters.
    public static let glucose: [Int: String] = [
        0: "low battery", 1: "result out of range", 3: "used strip", 9: "strip removed", 13: "no strips left",
        14: "strip expired",
    ]
    /// Scales (HS4).
    public static let scale: [Int: String] = [1: "low battery", 3: "over the maximum weight", 4: "unsteady"]

    /// The known codes of `family` (its ``DeviceFamily/Traits/errorCodes``).
    public static func codes(for family: DeviceFamily) -> [Int: String] { family.traits.errorCodes }
}
