import LayeredProtocol
import VitalCore

extension LayeredResponse {
    /// What a caller's client reads from the callback besides its readings, one `(name, value)` line per field it
    /// has, as `vitalbridge callback` prints them: `("status", "12799 (measure failed)")`, `("mac", …)`, ….
    public var summary: [(name: String, value: String)] {
        var lines: [(name: String, value: String)] = [("destination", callback.destination)]
        if let requestID { lines.append(("requestid", requestID)) }
        let outcomes = stages.map { "\($0.stage) \($0.outcome)" }.joined(separator: ", ")
        lines.append(("status", "\(callback.status.rawValue)" + (outcomes.isEmpty ? "" : " (\(outcomes))")))
        if let mac { lines.append(("mac", mac.description)) }
        if let reason { lines.append(("reason", "\(reason)" + (deviceFailure.map { " (\($0))" } ?? ""))) }
        if remaining > 0 { lines.append(("remaining", "\(remaining)")) }
        return lines
    }
}
