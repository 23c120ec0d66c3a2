import VitalCore

/// The `reason` of a fail or cancel callback.
///
/// Three shapes exist: ``cancel`` (`ERROR_CANCEL`) for a user cancel; ``device(_:code:)``
/// (`ERROR-<devicemodel>-<code>`, e.g. `ERROR-300-3`) for an error a device reported; and named codes
/// (`ERROR_<NAME>`), optionally followed by `:` and the request parameter they concern
/// (`ERROR_MISSING_PARAMETER:mac`). The set is open: a caller must accept reasons it does not know.
public struct LayeredReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// `ERROR-<devicemodel>-<code>`: the device of `model` reported error `code` (its family's numeric code).
    public static func device(_ model: DeviceModel, code: Int) -> LayeredReason {
        LayeredReason(rawValue: "ERROR-\(model.rawValue)-\(code)")
    }

    /// The model and code of an `ERROR-<devicemodel>-<code>` reason, or `nil` for any other reason.
    public var deviceError: (model: DeviceModel, code: Int)? {
        let parts = rawValue.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "ERROR", let modelNumber = parseDecimal(parts[1]),
            let model = DeviceModel(rawValue: modelNumber), let code = parseDecimal(parts[2])
        else { return nil }
        return (model, code)
    }

    /// A named reason about one request parameter: `ERROR_<NAME>:<parameter>`.
    public static func named(_ name: LayeredReason, parameter: String?) -> LayeredReason {
        guard let parameter else { return name }
        return LayeredReason(rawValue: name.rawValue + ":" + parameter)
    }

    /// The named code without its parameter (`ERROR_MISSING_PARAMETER` for `ERROR_MISSING_PARAMETER:mac`).
    public var code: LayeredReason {
        guard let colon = rawValue.firstIndex(of: ":") else { return self }
        return LayeredReason(rawValue: String(rawValue[..<colon]))
    }

    /// The parameter a named reason concerns (`mac` for `ERROR_MISSING_PARAMETER:mac`), if any.
    public var parameter: String? {
        guard let colon = rawValue.firstIndex(of: ":") else { return nil }
        return String(rawValue[rawValue.index(after: colon)...])
    }

    public var description: String { rawValue }
}

extension LayeredReason {
    /// `ERROR_CANCEL`: the user cancelled a stage (declined the connect prompt, closed the scan, stopped a
    /// measurement).
    public static let cancel = LayeredReason(rawValue: "ERROR_CANCEL")
    /// `ERROR_UNSUPPORTED_ACTION`: the model cannot run the requested `cmd` (see the capability matrix).
    public static let unsupportedAction = LayeredReason(rawValue: "ERROR_UNSUPPORTED_ACTION")
    /// `ERROR_UNSUPPORTED_TRANSPORT`: the hub's transport cannot speak to the model (real Bluetooth through BlueZ
    /// reaches only the generic SIG devices, 900–905: the iHealth models and the smartbands speak vendor
    /// protocols); nothing was touched.
    public static let unsupportedTransport = LayeredReason(rawValue: "ERROR_UNSUPPORTED_TRANSPORT")
    /// `ERROR_MISSING_PARAMETER:<name>`: a parameter the request needs is absent or has no value.
    public static let missingParameter = LayeredReason(rawValue: "ERROR_MISSING_PARAMETER")
    /// `ERROR_INVALID_PARAMETER:<name>`: a parameter's value is not one the protocol allows.
    public static let invalidParameter = LayeredReason(rawValue: "ERROR_INVALID_PARAMETER")
    /// `ERROR_REPEATED_PARAMETER:<name>`: a parameter occurs more than once (names compared without case;
    /// `callerurl` and `callurl` are one parameter).
    public static let repeatedParameter = LayeredReason(rawValue: "ERROR_REPEATED_PARAMETER")
    /// `ERROR_RESERVED_PARAMETER:<name>`: the request carries a parameter only a callback may carry (`status`,
    /// `result`, `reason`, `remaining`).
    public static let reservedParameter = LayeredReason(rawValue: "ERROR_RESERVED_PARAMETER")
    /// `ERROR_PARAMETER_NOT_APPLICABLE:<name>`: a known parameter that does not apply to this `cmd` and
    /// `devicemodel` (e.g. `mac` with an add command, `codetype` for a scale).
    public static let parameterNotApplicable = LayeredReason(rawValue: "ERROR_PARAMETER_NOT_APPLICABLE")
    /// `ERROR_UNSUPPORTED_VERSION:ver`: `ver` is present and not `100`.
    public static let unsupportedVersion = LayeredReason(rawValue: "ERROR_UNSUPPORTED_VERSION")
    /// `ERROR_UNIT_MISMATCH:unit`: the `unit` measures another category than the device (kg for a BP5).
    public static let unitMismatch = LayeredReason(rawValue: "ERROR_UNIT_MISMATCH")
    /// `ERROR_MALFORMED_URL`: the request is not a well-formed URL (a raw space, a fragment, a bad `%` escape in
    /// a parameter the hub reads).
    public static let malformedURL = LayeredReason(rawValue: "ERROR_MALFORMED_URL")
    /// `ERROR_REQUEST_TOO_LONG`: the request is longer than the platform's URL budget, so no callback could
    /// echo it.
    public static let requestTooLong = LayeredReason(rawValue: "ERROR_REQUEST_TOO_LONG")
    /// `ERROR_NOT_LAYERED_URL`: the URL is not addressed to the layered app's scheme. No callback is sent for
    /// it; the code exists for logs.
    public static let notLayeredURL = LayeredReason(rawValue: "ERROR_NOT_LAYERED_URL")
    /// `ERROR_QR_MODEL_MISMATCH`: the QR code names another model than `devicemodel`.
    public static let qrModelMismatch = LayeredReason(rawValue: "ERROR_QR_MODEL_MISMATCH")
    /// `ERROR_QR_INVALID_MAC`: the QR code's MAC is not 12 hexadecimal digits.
    public static let qrInvalidMAC = LayeredReason(rawValue: "ERROR_QR_INVALID_MAC")
    /// `ERROR_DEVICE_NOT_FOUND`: an add by scan found no paired device of the model, or the named device is not
    /// in range.
    public static let deviceNotFound = LayeredReason(rawValue: "ERROR_DEVICE_NOT_FOUND")
    /// `ERROR_SEVERAL_DEVICES:<count>`: an add by scan found `count` paired devices of the model in range, and
    /// nobody could be asked which one to add (no terminal, no graphical session). The hub never picks one for the
    /// user: add the one wanted by QR code, or ask again where the user can choose.
    public static func severalDevices(_ count: Int) -> LayeredReason {
        LayeredReason(rawValue: severalDevicesCode.rawValue + ":\(count)")
    }
    /// `ERROR_SEVERAL_DEVICES`, the code of ``severalDevices(_:)`` without its count.
    public static let severalDevicesCode = LayeredReason(rawValue: "ERROR_SEVERAL_DEVICES")
    /// `ERROR_NO_PROMPT:<parameter>`: the request needs the user's answer, and nobody can be asked (no terminal,
    /// no graphical session): the connect prompt of `popflag=1` (`ERROR_NO_PROMPT:popflag`, and nothing was
    /// connected) or the QR code of `addtype=1` without one already read (`ERROR_NO_PROMPT:addtype`).
    public static let noPrompt = LayeredReason(rawValue: "ERROR_NO_PROMPT")
    /// `ERROR_DEVICE_BUSY`: another request is using the device; try again.
    public static let deviceBusy = LayeredReason(rawValue: "ERROR_DEVICE_BUSY")
    /// `ERROR_DEVICE_CONNECTION_FAILED`: the link to the device could not be set up.
    public static let deviceConnectionFailed = LayeredReason(rawValue: "ERROR_DEVICE_CONNECTION_FAILED")
    /// `ERROR_DEVICE_DISCONNECTED`: the link dropped during the operation; what was stored is kept, the rest stays
    /// on the device.
    public static let deviceDisconnected = LayeredReason(rawValue: "ERROR_DEVICE_DISCONNECTED")
    /// `ERROR_DEVICE_PROTOCOL_VIOLATION`: the device sent bytes or answers its profile does not allow.
    public static let deviceProtocolViolation = LayeredReason(rawValue: "ERROR_DEVICE_PROTOCOL_VIOLATION")
    /// `ERROR_DEVICE_AUTHENTICATION_FAILED`: the user authentication the device requires failed.
    public static let deviceAuthenticationFailed = LayeredReason(rawValue: "ERROR_DEVICE_AUTHENTICATION_FAILED")
    /// `ERROR_DEVICE_UNSUPPORTED`: the model cannot do what the request asks of it.
    public static let deviceUnsupported = LayeredReason(rawValue: "ERROR_DEVICE_UNSUPPORTED")
    /// `ERROR_DEVICE_STORE_FAILED`: the hub could not store what the device sent; the device was not told to
    /// forget it.
    public static let deviceStoreFailed = LayeredReason(rawValue: "ERROR_DEVICE_STORE_FAILED")
    /// `ERROR_DEVICE_TIMEOUT`: the device sent nothing within the time the hub waits for it (a generic SIG
    /// device's measurement: 2 minutes for the user to measure).
    public static let deviceTimeout = LayeredReason(rawValue: "ERROR_DEVICE_TIMEOUT")
    /// `ERROR_DEVICE_FAILED`: the device reported a failure without a code of its own, or failed in a way that has
    /// no name above.
    public static let deviceFailed = LayeredReason(rawValue: "ERROR_DEVICE_FAILED")
    /// `ERROR_URL_BUDGET`: not even an empty result fits the platform's URL budget (the echoed request is too
    /// long); the readings stay pending.
    public static let urlBudget = LayeredReason(rawValue: "ERROR_URL_BUDGET")
    /// `ERROR_CALLBACK_NOT_ALLOWED`: the callback would go to a destination no callback may go to (a web,
    /// network or system scheme, or the hub's own; see ``LayeredCallback/refusal(ofDestination:)``). No callback is
    /// sent for it; the code exists for logs.
    public static let callbackNotAllowed = LayeredReason(rawValue: "ERROR_CALLBACK_NOT_ALLOWED")
    /// `ERROR_UNKNOWN_CALLER`: the caller is not whitelisted, names no caller, or its `scheme` does not match its
    /// whitelist entry. No callback is sent for it; the code exists for logs.
    public static let unknownCaller = LayeredReason(rawValue: "ERROR_UNKNOWN_CALLER")
    /// `ERROR_DYNAMIC_CALLBACK_NOT_ALLOWED`: the request names a `callerurl`, and its caller's whitelist entry is a
    /// fixed callback URL, not `*`; the fail callback goes to the fixed URL.
    public static let dynamicCallbackNotAllowed = LayeredReason(rawValue: "ERROR_DYNAMIC_CALLBACK_NOT_ALLOWED")
    /// `ERROR_DEVICE_MODEL_MISMATCH`: the hub knows the device `mac` as another model than `devicemodel`.
    public static let deviceModelMismatch = LayeredReason(rawValue: "ERROR_DEVICE_MODEL_MISMATCH")
    /// `ERROR_STORE`: the hub's own storage failed (its store, fleet or a device's saved state cannot be read or
    /// written); nothing the device sent is lost, and what was stored stays pending.
    public static let store = LayeredReason(rawValue: "ERROR_STORE")
    /// `ERROR_STORE_BUSY`: the hub's store was held by other requests longer than the hub waits; nothing is lost,
    /// and the same request may be sent again.
    public static let storeBusy = LayeredReason(rawValue: "ERROR_STORE_BUSY")
    /// `ERROR_INTERNAL`: the hub reached a state it should never reach; nothing stored is lost.
    public static let `internal` = LayeredReason(rawValue: "ERROR_INTERNAL")
}

/// A non-negative decimal number made of ASCII digits only (no sign, no space), or `nil`; at most 18 digits.
func parseDecimal(_ text: some StringProtocol) -> Int? {
    var value = 0
    var count = 0
    for byte in text.utf8 {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), count < 18 else { return nil }
        value = value &* 10 &+ Int(byte &- UInt8(ascii: "0"))
        count += 1
    }
    return count == 0 ? nil : value
}
