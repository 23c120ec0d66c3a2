import VitalCore

extension LayeredRequest {
    /// What the layered app reads from the request, one `(name, value)` line per field it has, as
    /// `vitalbridge request` prints them: `("cmd", "0 (measure)")`, `("devicemodel", "100 (BP5, bp)")`, ….
    public var summary: [(name: String, value: String)] {
        var lines: [(name: String, value: String)] = [
            ("platform", platform.rawValue),
            ("cmd", "\(action.rawValue) (\(action.stages.map { "\($0)" }.joined(separator: ", ")))"),
            (
                "devicemodel",
                "\(deviceModel.rawValue) (\(deviceModel.name), \(deviceModel.category.rawValue))"
            ),
        ]
        if let mac = mac { lines.append(("mac", mac.description)) }
        if let addType = addType { lines.append(("addtype", "\(addType.rawValue) (\(addType))")) }
        if action.addsDevice { lines.append(("popflag", prompts ? "1 (prompt)" : "0 (no prompt)")) }
        lines.append(("unit", unit.map { "\($0.rawValue) (\($0.symbol))" } ?? "none (oximeter)"))
        if let profile = profile {
            lines.append(
                (
                    "profile",
                    "userid \(profile.userID), age \(profile.age), sex \(profile.sex), height \(profile.height) cm, "
                        + "weight \(profile.weight) kg, swim \(profile.swim)"
                ))
        }
        if let code = stripCode {
            lines.append(("strip code", "\(code.type) (\(code.code.utf8.count) characters)"))
        }
        if let appID = appID { lines.append(("appid", appID)) }
        if let scheme = callerScheme { lines.append(("scheme", scheme)) }
        if let callerURL = callerURL { lines.append(("callerurl", callerURL)) }
        lines.append(
            (
                "echo",
                echo.map { parameter in parameter.value.map { "\(parameter.name)=\($0)" } ?? parameter.name }
                    .joined(separator: "&")
            ))
        return lines
    }
}
