import NIOCore
import PostgresNIO

/// One column of a batch, sent as a one-dimensional PostgreSQL array whose elements may be NULL: what
/// `unnest($1::bigint[], …)` turns back into rows. (PostgresNIO's own arrays have no NULL element.)
struct ColumnArray: PostgresDynamicTypeEncodable {
    enum Elements {
        case int64([Int64?])
        case int32([Int32?])
        case int16([Int16?])
        case double([Double?])
        case bool([Bool?])
        case text([String?])
    }

    var elements: Elements

    init(_ elements: Elements) { self.elements = elements }

    var psqlType: PostgresDataType {
        switch elements {
        case .int64: .int8Array
        case .int32: .int4Array
        case .int16: .int2Array
        case .double: .float8Array
        case .bool: .boolArray
        case .text: .textArray
        }
    }

    var psqlFormat: PostgresFormat { .binary }

    private var elementType: PostgresDataType {
        switch elements {
        case .int64: .int8
        case .int32: .int4
        case .int16: .int2
        case .double: .float8
        case .bool: .bool
        case .text: .text
        }
    }

    private var count: Int {
        switch elements {
        case .int64(let values): values.count
        case .int32(let values): values.count
        case .int16(let values): values.count
        case .double(let values): values.count
        case .bool(let values): values.count
        case .text(let values): values.count
        }
    }

    /// PostgreSQL's binary array: dimensions, has-NULL flag, element type, (length, lower bound) per dimension,
    /// then each element as its length (-1 for NULL) and its bytes.
    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        let count = self.count
        buffer.writeInteger(count == 0 ? 0 : 1, as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
        buffer.writeInteger(elementType.rawValue)
        guard count > 0 else { return }
        buffer.writeInteger(Int32(count), as: Int32.self)
        buffer.writeInteger(1, as: Int32.self)
        var bytes: [UInt8]
        switch elements {
        case .int64(let values): bytes = Self.fixedWidth(values) { $0.bigEndian }
        case .int32(let values): bytes = Self.fixedWidth(values) { $0.bigEndian }
        case .int16(let values): bytes = Self.fixedWidth(values) { $0.bigEndian }
        case .double(let values): bytes = Self.fixedWidth(values) { $0.bitPattern.bigEndian }
        case .bool(let values): bytes = Self.fixedWidth(values) { $0 ? UInt8(1) : 0 }
        case .text(let values): bytes = Self.text(values)
        }
        buffer.writeBytes(bytes)
    }

    /// The elements of fixed width: each its length (-1 for NULL) and its big-endian bytes (`encode` gives them),
    /// written straight into one array (a `ByteBuffer` write per element costs several times more).
    private static func fixedWidth<T, Encoded: FixedWidthInteger>(_ values: [T?], _ encode: (T) -> Encoded) -> [UInt8] {
        let width = MemoryLayout<Encoded>.size
        let nulls = values.reduce(0) { $0 + ($1 == nil ? 1 : 0) }
        let size = values.count * 4 + (values.count - nulls) * width
        return [UInt8](unsafeUninitializedCapacity: size) { bytes, count in
            let raw = UnsafeMutableRawBufferPointer(bytes)
            var offset = 0
            for value in values {
                guard let value else {
                    raw.storeBytes(of: Int32(-1).bigEndian, toByteOffset: offset, as: Int32.self)
                    offset += 4
                    continue
                }
                raw.storeBytes(of: Int32(width).bigEndian, toByteOffset: offset, as: Int32.self)
                raw.storeBytes(of: encode(value), toByteOffset: offset + 4, as: Encoded.self)
                offset += 4 + width
            }
            count = size
        }
    }

    /// Text elements: each its length (-1 for NULL) and its UTF-8 bytes.
    private static func text(_ values: [String?]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 16)
        for value in values {
            guard var value else {
                bytes.append(contentsOf: [0xFF, 0xFF, 0xFF, 0xFF])
                continue
            }
            value.withUTF8 { utf8 in
                let length = UInt32(utf8.count)
                bytes.append(contentsOf: [
                    UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF),
                ])
                bytes.append(contentsOf: utf8)
            }
        }
        return bytes
    }
}
