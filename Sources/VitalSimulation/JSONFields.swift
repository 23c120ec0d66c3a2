import VitalCore

/// The members of a JSON object being read into a type, at `path` (`devices[2].radio`): typed accessors that
/// name the path of a wrong value, and ``finish()``, which rejects the members nobody asked for.
struct JSONFields {
    let path: String
    /// The object's members, in the document's order.
    let members: [(key: String, value: JSON)]
    private var read: [String] = []

    /// The object `value` at `path`, or an error naming what it is instead.
    init(_ value: JSON, at path: String) throws(FleetError) {
        guard case .object(let members) = value else {
            throw FleetError(path: path, message: "is \(value.kind), not an object")
        }
        self.path = path
        self.members = members
    }

    /// The root object of the document `bytes`, read at `path`; a document that is not JSON is an error at `name`.
    init(document bytes: [UInt8], name: String, at path: String) throws(FleetError) {
        let document: JSON
        do {
            document = try JSON.parse(bytes)
        } catch {
            throw FleetError(path: name, message: "is not valid JSON: it \(error.message) (byte \(error.offset))")
        }
        try self.init(document, at: path)
    }

    func path(of key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// The value of `key`, `nil` when absent or null.
    mutating func value(_ key: String) -> JSON? {
        read.append(key)
        guard let value = members.first(where: { $0.key == key })?.value else { return nil }
        if case .null = value { return nil }
        return value
    }

    /// The error for a required member that is absent or null.
    func missing(_ key: String) -> FleetError { FleetError(path: path(of: key), message: "is required") }

    private func mismatch(_ key: String, _ value: JSON, _ expected: String) -> FleetError {
        FleetError(path: path(of: key), message: "is \(value.kind), not \(expected)")
    }

    mutating func string(_ key: String) throws(FleetError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw mismatch(key, value, "a string") }
        return text
    }

    mutating func bool(_ key: String) throws(FleetError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw mismatch(key, value, "true or false") }
        return flag
    }

    mutating func int(_ key: String) throws(FleetError) -> Int? {
        guard let value = value(key) else { return nil }
        guard case .number(let text) = value, let number = Int(text) else {
            throw mismatch(key, value, "a whole number")
        }
        return number
    }

    mutating func uint64(_ key: String) throws(FleetError) -> UInt64? {
        guard let value = value(key) else { return nil }
        guard case .number(let text) = value, let number = UInt64(text) else {
            throw mismatch(key, value, "a whole number from 0 to 18446744073709551615")
        }
        return number
    }

    mutating func double(_ key: String) throws(FleetError) -> Double? {
        guard let value = value(key) else { return nil }
        guard case .number(let text) = value, let number = Double(text), number.isFinite else {
            throw mismatch(key, value, "a number")
        }
        return number
    }

    mutating func object<T>(_ key: String, _ make: (JSONFields) throws(FleetError) -> T) throws(FleetError) -> T? {
        guard let value = value(key) else { return nil }
        return try make(try JSONFields(value, at: path(of: key)))
    }

    mutating func array<T>(_ key: String, _ make: (JSON, String) throws(FleetError) -> T) throws(FleetError) -> [T]? {
        guard let value = value(key) else { return nil }
        guard case .array(let elements) = value else { throw mismatch(key, value, "an array") }
        var result: [T] = []
        result.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            result.append(try make(element, "\(path(of: key))[\(index)]"))
        }
        return result
    }

    /// The strings of the array `key`.
    mutating func strings(_ key: String) throws(FleetError) -> [String]? {
        try array(key) { element, path throws(FleetError) in
            guard case .string(let text) = element else {
                throw FleetError(path: path, message: "is \(element.kind), not a string")
            }
            return text
        }
    }

    /// The objects of the array `key`, each read by `make`.
    mutating func objects<T>(_ key: String, _ make: (JSONFields) throws(FleetError) -> T) throws(FleetError) -> [T]? {
        try array(key) { element, path throws(FleetError) in try make(try JSONFields(element, at: path)) }
    }

    /// Rejects a member no accessor asked for.
    func finish() throws(FleetError) {
        if let unknown = members.first(where: { !read.contains($0.key) }) {
            throw FleetError(path: path(of: unknown.key), message: "is not a known field")
        }
    }
}

/// The members of a JSON object being written: absent optionals are left out, keys sorted.
struct JSONMembers {
    private var members: [(key: String, value: JSON)] = []

    subscript(key: String) -> JSON? {
        get { members.first { $0.key == key }?.value }
        set {
            if let newValue { members.append((key, newValue)) }
        }
    }

    var object: JSON { .object(members.sorted { $0.key < $1.key }) }
}
