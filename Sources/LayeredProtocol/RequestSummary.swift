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

extension LayeredResult {
    /// The result's readings as `vitalbridge demo` shows them, a row each: a `key=value` cell a field, in the
    /// object's order (a nested object or list of objects as its compact JSON, a list of strings separated by
    /// commas), each row of a combined result labelled `measured` or `synced` first.
    public var rows: [[String]] {
        func rows(_ objects: [ResultObject], _ label: String?) -> [[String]] {
            objects.map { object in
                (label.map { [$0] } ?? [])
                    + object.fields.map { field in
                        switch field.value {
                        case .number(let number): "\(field.key)=\(number)"
                        case .string(let string): "\(field.key)=\(string)"
                        case .object(let nested): "\(field.key)=\(nested.json)"
                        case .list(let objects): "\(field.key)=\(LayeredResult.list(objects).json)"
                        case .strings(let strings): "\(field.key)=\(strings.joined(separator: ","))"
                        }
                    }
            }
        }
        switch self {
        case .list(let objects): return rows(objects, nil)
        case .combined(let measure, let sync): return rows(measure, "measured") + rows(sync, "synced")
        }
    }
}
