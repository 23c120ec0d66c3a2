import VitalCore

extension DDSResult {
    /// Each parameter the callback carries, in the document's order, with what it means: a score with its colour
    /// (`("stress", 0.32, "green (…)")`), a figure with its unit, the token with its share page, the provider's
    /// failure, then the echoed extras. What `vitalbridge dds callback` prints as a table.
    public var parameters: [(name: String, value: String, meaning: String)] {
        members.map { name, value, meaning in
            guard case .string(let text) = value else {
                return (name, String(decoding: value.serialized(pretty: false), as: UTF8.self), meaning)
            }
            return (name, text, meaning)
        }
    }

    /// The callback's parameters as one JSON object, numbers as numbers, the colours under `stress_c`, `energy_c`
    /// and `productivity_c`: what `vitalbridge dds callback --format json` prints.
    public var json: JSON {
        var object: [(key: String, value: JSON)] = members.map { ($0.name, $0.value) }
        for (key, colour) in [
            ("stress_c", stressColour), ("energy_c", energyColour), ("productivity_c", productivityColour),
        ] {
            if let colour { object.append((key, .string(colour.description))) }
        }
        return .object(object)
    }

    private var members: [(name: String, value: JSON, meaning: String)] {
        var members: [(name: String, value: JSON, meaning: String)] = []
        func add(_ name: String, _ value: Double?, _ colour: DDSColour? = nil, _ unit: String = "") {
            guard let value else { return }
            members.append((name, .number(value), colour.map { "\($0) (\($0.meaning))" } ?? unit))
        }
        add("stress", stress, stressColour)
        add("energy", energy, energyColour)
        add("productivity", productivity, productivityColour)
        add("rmssd", rmssd, nil, "ms")
        add("sdnn", sdnn, nil, "ms")
        add("power", power, nil, "ms²")
        if let token, let page = shareLink { members.append(("token", .string(token), page)) }
        if let failure { members.append(("error", .string(failure.rawValue), "the provider could not measure")) }
        for (name, value) in extra { members.append((name, .string(value), "echoed")) }
        return members
    }
}
