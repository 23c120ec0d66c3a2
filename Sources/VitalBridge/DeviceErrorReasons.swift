import LayeredProtocol
import VitalCore
import VitalDevices

extension DeviceError {
    /// The callback reason for this error from a device of `model`: `ERROR-<devicemodel>-<code>` when the device
    /// reported a code, else the reason declared for its kind (a `LayeredReason` static).
    public func reason(for model: DeviceModel) -> LayeredReason {
        if let deviceCode { return .device(model, code: deviceCode) }
        switch code {
        case .cancelled: return .cancel
        case .notFound: return .deviceNotFound
        case .busy: return .deviceBusy
        case .connectionFailed: return .deviceConnectionFailed
        case .disconnected: return .deviceDisconnected
        case .protocolViolation: return .deviceProtocolViolation
        case .authenticationFailed, .userNotAuthorized: return .deviceAuthenticationFailed
        case .unsupported: return .deviceUnsupported
        case .storeFailed: return .deviceStoreFailed
        case .timedOut: return .deviceTimeout
        default: return .deviceFailed
        }
    }
}
