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
        switch elements {
        case .int64(let values): Self.each(values, into: &buffer) { $1.writeInteger($0, as: Int64.self) }
        case .int32(let values): Self.each(values, into: &buffer) { $1.writeInteger($0, as: Int32.self) }
        case .int16(let values): Self.each(values, into: &buffer) { $1.writeInteger($0, as: Int16.self) }
        case .double(let values): Self.each(values, into: &buffer) { $1.writeInteger($0.bitPattern, as: UInt64.self) }
        case .bool(let values): Self.each(values, into: &buffer) { $1.writeInteger($0 ? 1 : 0, as: UInt8.self) }
        case .text(let values): Self.each(values, into: &buffer) { $1.writeString($0) }
        }
    }

    /// Writes each element as its length (-1 for NULL) and the bytes `write` writes.
    private static func each<T>(_ values: [T?], into buffer: inout ByteBuffer, _ write: (T, inout ByteBuffer) -> Void) {
        for value in values {
            guard let value else {
                buffer.writeInteger(-1, as: Int32.self)
                continue
            }
            let lengthIndex = buffer.writerIndex
            buffer.writeInteger(0, as: Int32.self)
            write(value, &buffer)
            buffer.setInteger(Int32(buffer.writerIndex - lengthIndex - 4), at: lengthIndex)
        }
    }
}
