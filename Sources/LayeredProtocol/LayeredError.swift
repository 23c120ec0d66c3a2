import VitalCore

/// Why a request URL was rejected.
///
/// The error names the parameter at fault and maps to the `reason` of the fail callback. Its ``description`` is
/// one line and never contains a parameter's value, so it can be logged without leaking health or personal data.
public struct LayeredError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of rejection; open, so later versions may add kinds.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The URL is not addressed to the layered app's scheme: no callback may be sent.
        public static let notLayeredURL = Code(rawValue: "notLayeredURL")
        /// The URL is not well formed.
        public static let malformedURL = Code(rawValue: "malformedURL")
        /// The URL is longer than the platform's budget.
        public static let requestTooLong = Code(rawValue: "requestTooLong")
        /// A required parameter is absent, or present without a value.
        public static let missingParameter = Code(rawValue: "missingParameter")
        /// A parameter's value is not allowed.
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// A parameter occurs twice.
        public static let repeatedParameter = Code(rawValue: "repeatedParameter")
        /// A parameter only a callback may carry.
        public static let reservedParameter = Code(rawValue: "reservedParameter")
        /// A known parameter that does not apply to the `cmd` and `devicemodel`.
        public static let notApplicable = Code(rawValue: "notApplicable")
        /// `ver` is not `100`.
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// The model does not support the `cmd`.
        public static let unsupportedAction = Code(rawValue: "unsupportedAction")
        /// The `unit` belongs to another category than the device.
        public static let unitMismatch = Code(rawValue: "unitMismatch")
        /// A QR code names another model than the requested one.
        public static let qrModelMismatch = Code(rawValue: "qrModelMismatch")
        /// A QR code's MAC is not 12 hexadecimal digits.
        public static let qrInvalidMAC = Code(rawValue: "qrInvalidMAC")
        /// Not even a callback with an empty result fits the URL budget.
        public static let urlBudget = Code(rawValue: "urlBudget")
    }

    /// The kind of rejection.
    public var code: Code
    /// The parameter at fault, as the protocol names it (lower case), if the error concerns one.
    public var parameter: String?
    /// A one-line explanation without any parameter value.
    public var message: String

    public init(_ code: Code, parameter: String? = nil, message: String) {
        self.code = code
        self.parameter = parameter
        self.message = message
    }

    /// Whether a fail callback may answer this error: every error but ``Code/notLayeredURL``.
    public var allowsCallback: Bool { code != .notLayeredURL }

    /// The callback `reason` this error becomes, e.g. `ERROR_MISSING_PARAMETER:mac`.
    public var reason: LayeredReason {
        let name: LayeredReason =
            switch code {
            case .notLayeredURL: .notLayeredURL
            case .malformedURL: .malformedURL
            case .requestTooLong: .requestTooLong
            case .missingParameter: .missingParameter
            case .repeatedParameter: .repeatedParameter
            case .reservedParameter: .reservedParameter
            case .notApplicable: .parameterNotApplicable
            case .unsupportedVersion: .unsupportedVersion
            case .unsupportedAction: .unsupportedAction
            case .unitMismatch: .unitMismatch
            case .qrModelMismatch: .qrModelMismatch
            case .qrInvalidMAC: .qrInvalidMAC
            case .urlBudget: .urlBudget
            default: .invalidParameter
            }
        switch code {
        case .unsupportedAction, .qrModelMismatch, .qrInvalidMAC, .notLayeredURL, .requestTooLong, .urlBudget:
            return name
        default:
            return .named(name, parameter: parameter)
        }
    }

    public var description: String {
        if let parameter { "\(code) (\(parameter)): \(message)" } else { "\(code): \(message)" }
    }
}
