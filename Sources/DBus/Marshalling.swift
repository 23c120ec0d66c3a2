import Glibc

#if canImport(Glibc)
    import Glibc
#endif

/// The text of an `errno` value.
func errnoName(_ code: Int32) -> String { String(cString: strerror(code)) }

/// Appends `values` to the sd-bus message `message`.
func append(_ values: [DBusValue], to message: OpaquePointer) throws(DBusError) {
    for value in values { try append(value, to: message) }
}

private func check(_ result: Int32, _ what: String) throws(DBusError) {
    guard result >= 0 else { throw DBusError.system(result, what) }
}

private func appendBasic<T>(_ message: OpaquePointer, _ type: Character, _ value: T) throws(DBusError) {
    var value = value
    let result = withUnsafePointer(to: &value) { sd_bus_message_append_basic(message, CChar(type.asciiValue!), $0) }
    try check(result, "appending a value of type \(type)")
}

func append(_ value: DBusValue, to message: OpaquePointer) throws(DBusError) {
    switch value {
    case .byte(let byte): try appendBasic(message, "y", byte)
    case .boolean(let flag): try appendBasic(message, "b", Int32(flag ? 1 : 0))
    case .int16(let number): try appendBasic(message, "n", number)
    case .uint16(let number): try appendBasic(message, "q", number)
    case .int32(let number): try appendBasic(message, "i", number)
    case .uint32(let number): try appendBasic(message, "u", number)
    case .int64(let number): try appendBasic(message, "x", number)
    case .uint64(let number): try appendBasic(message, "t", number)
    case .double(let number): try appendBasic(message, "d", number)
    case .unixFD(let descriptor): try appendBasic(message, "h", descriptor)
    case .string(let text), .objectPath(let text), .signature(let text):
        let type = CChar(value.signature.utf8.first!)
        // a string with a NUL cannot be sent: sd-bus would cut it there
        guard !text.utf8.contains(0) else {
            throw DBusError(name: DBusError.invalidArgs, message: "a string with a NUL byte cannot be sent")
        }
        try check(text.withCString { sd_bus_message_append_basic(message, type, $0) }, "appending \(value.signature)")
    case .bytes(let bytes):
        let result = bytes.withUnsafeBytes {
            sd_bus_message_append_array(
                message, CChar(UInt8(ascii: "y")), $0.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, $0.count)
        }
        try check(result, "appending a byte array")
    case .array(let element, let elements):
        try container(message, "a", element) { () throws(DBusError) in
            for element in elements { try append(element, to: message) }
        }
    case .dictionary(let key, let valueType, let entries):
        try container(message, "a", "{" + key + valueType + "}") { () throws(DBusError) in
            for entry in entries {
                try container(message, "e", key + valueType) { () throws(DBusError) in
                    try append(entry.key, to: message)
                    try append(entry.value, to: message)
                }
            }
        }
    case .structure(let fields):
        try container(message, "r", fields.map(\.signature).joined()) { () throws(DBusError) in
            try append(fields, to: message)
        }
    case .variant(let inner):
        try container(message, "v", inner.signature) { () throws(DBusError) in try append(inner, to: message) }
    }
}

private func container(
    _ message: OpaquePointer, _ type: Character, _ contents: String, _ body: () throws(DBusError) -> Void
) throws(DBusError) {
    try check(
        contents.withCString { sd_bus_message_open_container(message, CChar(type.asciiValue!), $0) },
        "opening a container of type \(type)\(contents)")
    try body()
    try check(sd_bus_message_close_container(message), "closing a container")
}

/// Reads every value left in the current container of `message`.
func readAll(_ message: OpaquePointer) throws(DBusError) -> [DBusValue] {
    var values: [DBusValue] = []
    while let value = try readNext(message) { values.append(value) }
    return values
}

private func readBasic<T>(_ message: OpaquePointer, _ type: CChar, _ initial: T) throws(DBusError) -> T {
    var value = initial
    let result = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(message, type, $0) }
    try check(result, "reading a value")
    return value
}

/// The next value of the current container of `message`, or `nil` at its end.
func readNext(_ message: OpaquePointer) throws(DBusError) -> DBusValue? {
    var type: CChar = 0
    var contents: UnsafePointer<CChar>? = nil
    let peeked = sd_bus_message_peek_type(message, &type, &contents)
    try check(peeked, "reading a message")
    guard peeked > 0 else { return nil }
    switch UInt8(bitPattern: type) {
    case UInt8(ascii: "y"): return .byte(try readBasic(message, type, UInt8(0)))
    case UInt8(ascii: "b"): return .boolean(try readBasic(message, type, Int32(0)) != 0)
    case UInt8(ascii: "n"): return .int16(try readBasic(message, type, Int16(0)))
    case UInt8(ascii: "q"): return .uint16(try readBasic(message, type, UInt16(0)))
    case UInt8(ascii: "i"): return .int32(try readBasic(message, type, Int32(0)))
    case UInt8(ascii: "u"): return .uint32(try readBasic(message, type, UInt32(0)))
    case UInt8(ascii: "x"): return .int64(try readBasic(message, type, Int64(0)))
    case UInt8(ascii: "t"): return .uint64(try readBasic(message, type, UInt64(0)))
    case UInt8(ascii: "d"): return .double(try readBasic(message, type, Double(0)))
    case UInt8(ascii: "h"):
        // the message owns its descriptor; the value's receiver gets a copy of its own
        let descriptor = try readBasic(message, type, Int32(-1))
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
        guard copy >= 0 else { throw DBusError.system(-errno, "copying a received file descriptor") }
        return .unixFD(copy)
    case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
        let pointer = try readBasic(message, type, UnsafePointer<CChar>?.none)
        let text = pointer.map { String(cString: $0) } ?? ""
        switch UInt8(bitPattern: type) {
        case UInt8(ascii: "s"): return .string(text)
        case UInt8(ascii: "o"): return .objectPath(text)
        default: return .signature(text)
        }
    case UInt8(ascii: "a"):
        let element = contents.map { String(cString: $0) } ?? ""
        if element == "y" {
            var pointer: UnsafeRawPointer? = nil
            var size = 0
            try check(
                sd_bus_message_read_array(message, CChar(UInt8(ascii: "y")), &pointer, &size), "reading a byte array")
            guard let pointer, size > 0 else { return .bytes([]) }
            return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
        }
        return try entered(message, type, element) { () throws(DBusError) -> DBusValue in
            if element.hasPrefix("{") {
                let inner = String(element.dropFirst().dropLast())
                var entries: [DBusDictionaryEntry] = []
                while true {
                    let entry = try readNext(message)
                    guard case .structure(let pair)? = entry, pair.count == 2 else {
                        if entry == nil { break }
                        throw DBusError(name: DBusError.invalidArgs, message: "a malformed dictionary entry")
                    }
                    entries.append(DBusDictionaryEntry(key: pair[0], value: pair[1]))
                }
                let keyType = String(inner.prefix(1))
                return .dictionary(keySignature: keyType, valueSignature: String(inner.dropFirst()), entries)
            }
            return .array(elementSignature: element, try readAll(message))
        }
    case UInt8(ascii: "v"):
        let inner = contents.map { String(cString: $0) } ?? ""
        return try entered(message, type, inner) { () throws(DBusError) -> DBusValue in
            guard let value = try readNext(message) else {
                throw DBusError(name: DBusError.invalidArgs, message: "an empty variant")
            }
            return .variant(value)
        }
    case UInt8(ascii: "r"), UInt8(ascii: "e"):
        let inner = contents.map { String(cString: $0) } ?? ""
        return try entered(message, type, inner) { () throws(DBusError) -> DBusValue in
            .structure(try readAll(message))
        }
    default:
        throw DBusError(name: DBusError.invalidArgs, message: "an unknown D-Bus type \(type)")
    }
}

private func entered(
    _ message: OpaquePointer, _ type: CChar, _ contents: String, _ body: () throws(DBusError) -> DBusValue
) throws(DBusError) -> DBusValue {
    try check(contents.withCString { sd_bus_message_enter_container(message, type, $0) }, "entering a container")
    let value = try body()
    try check(sd_bus_message_exit_container(message), "leaving a container")
    return value
}
