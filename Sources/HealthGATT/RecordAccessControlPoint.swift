/// A Record Access Control Point op code. Open: a response code echoes the request's op code, which may be one
/// this version does not know (`06 00 0C 02` answers an unsupported op code 12).
public struct RACPOpCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let reportStoredRecords = Self(rawValue: 1)
    public static let deleteStoredRecords = Self(rawValue: 2)
    public static let abortOperation = Self(rawValue: 3)
    public static let reportNumberOfStoredRecords = Self(rawValue: 4)
    public static let numberOfStoredRecordsResponse = Self(rawValue: 5)
    public static let responseCode = Self(rawValue: 6)

    /// The op code's SIG name in words, e.g. `report stored records`, or `op code 12` for one this version does
    /// not know.
    public var description: String {
        switch self {
        case .reportStoredRecords: "report stored records"
        case .deleteStoredRecords: "delete stored records"
        case .abortOperation: "abort operation"
        case .reportNumberOfStoredRecords: "report number of stored records"
        case .numberOfStoredRecordsResponse: "number of stored records response"
        case .responseCode: "response code"
        default: "op code \(rawValue)"
        }
    }
}

/// A Record Access Control Point response code value. Open: a collector must accept codes it does not know.
public struct RACPResponseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = Self(rawValue: 1)
    public static let opCodeNotSupported = Self(rawValue: 2)
    public static let invalidOperator = Self(rawValue: 3)
    public static let operatorNotSupported = Self(rawValue: 4)
    public static let invalidOperand = Self(rawValue: 5)
    public static let noRecordsFound = Self(rawValue: 6)
    public static let abortUnsuccessful = Self(rawValue: 7)
    public static let procedureNotCompleted = Self(rawValue: 8)
    public static let operandNotSupported = Self(rawValue: 9)

    public var description: String {
        switch self {
        case .success: "success"
        case .opCodeNotSupported: "op code not supported"
        case .invalidOperator: "invalid operator"
        case .operatorNotSupported: "operator not supported"
        case .invalidOperand: "invalid operand"
        case .noRecordsFound: "no records found"
        case .abortUnsuccessful: "abort unsuccessful"
        case .procedureNotCompleted: "procedure not completed"
        case .operandNotSupported: "operand not supported"
        default: "response code \(rawValue)"
        }
    }
}

/// One end of a record range: a sequence number (filter type 1) or a user-facing time (filter type 2).
public enum RecordBound: Hashable, Sendable {
    case sequenceNumber(UInt16)
    case userFacingTime(DateTime)
}

/// Which records an operation applies to (the operator with its operand).
public enum RecordFilter: Hashable, Sendable {
    /// Operator 1.
    case all
    /// Operator 2: at most the bound.
    case lessThanOrEqual(RecordBound)
    /// Operator 3: at least the bound.
    case greaterThanOrEqual(RecordBound)
    /// Operator 4: from the first bound to the second, inclusive; both of one filter type.
    case sequenceNumbers(ClosedRange<UInt16>)
    /// Operator 4 with user-facing times.
    case userFacingTimes(from: DateTime, through: DateTime)
    /// Operator 5.
    case first
    /// Operator 6.
    case last
}

/// Record Access Control Point (0x2A52): the requests a collector writes and the responses a device indicates.
///
/// Requests carry an operator (1 all, 2 ≤, 3 ≥, 4 within range, 5 first, 6 last) and, for 2–4, a filter type
/// (1 sequence number, 2 user-facing time) with its values. Abort uses the null operator (0) and no operand. The
/// number-of-records response carries a 16-bit count, the response code the request op code (any value: a device
/// echoes op codes it does not support) and a ``RACPResponseCode``, both with the null operator.
public enum RecordAccessControlPoint: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A52
    public static let name = "Record Access Control Point"

    case reportStoredRecords(RecordFilter)
    case deleteStoredRecords(RecordFilter)
    case abortOperation
    case reportNumberOfStoredRecords(RecordFilter)
    case numberOfStoredRecordsResponse(UInt16)
    case responseCode(request: RACPOpCode, response: RACPResponseCode)

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        switch RACPOpCode(rawValue: try reader.uint8("op_code")) {
        case .reportStoredRecords: self = .reportStoredRecords(try Self.filter(&reader))
        case .deleteStoredRecords: self = .deleteStoredRecords(try Self.filter(&reader))
        case .reportNumberOfStoredRecords: self = .reportNumberOfStoredRecords(try Self.filter(&reader))
        case .abortOperation:
            try Self.nullOperator(&reader)
            self = .abortOperation
        case .numberOfStoredRecordsResponse:
            try Self.nullOperator(&reader)
            self = .numberOfStoredRecordsResponse(try reader.uint16("operand.number_of_records"))
        case .responseCode:
            try Self.nullOperator(&reader)
            let request = RACPOpCode(rawValue: try reader.uint8("operand.request_op_code"))
            self = .responseCode(
                request: request, response: RACPResponseCode(rawValue: try reader.uint8("operand.response_code_value")))
        default:
            throw reader.error(.reservedValue, "op_code", at: 0)
        }
        try reader.finish()
    }

    private static func nullOperator(_ reader: inout ByteReader) throws(GATTError) {
        let at = reader.offset
        guard try reader.uint8("operator") == 0 else { throw reader.error(.invalidValue, "operator", at: at) }
    }

    private static func filter(_ reader: inout ByteReader) throws(GATTError) -> RecordFilter {
        let at = reader.offset
        switch try reader.uint8("operator") {
        case 1: return .all
        case 2: return .lessThanOrEqual(try bound(&reader))
        case 3: return .greaterThanOrEqual(try bound(&reader))
        case 4:
            let typeAt = reader.offset
            switch try reader.uint8("operand.filter_type") {
            case 1:
                let low = try reader.uint16("operand.minimum")
                let high = try reader.uint16("operand.maximum")
                guard low <= high else { throw reader.error(.invalidValue, "operand.maximum", at: reader.offset - 2) }
                return .sequenceNumbers(low...high)
            case 2:
                let from = try reader.dateTime("operand.minimum")
                let through = try reader.dateTime("operand.maximum")
                guard from <= through else {
                    throw reader.error(.invalidValue, "operand.maximum", at: reader.offset - 7)
                }
                return .userFacingTimes(from: from, through: through)
            default: throw reader.error(.reservedValue, "operand.filter_type", at: typeAt)
            }
        case 5: return .first
        case 6: return .last
        case 0: throw reader.error(.invalidValue, "operator", at: at)
        default: throw reader.error(.reservedValue, "operator", at: at)
        }
    }

    private static func bound(_ reader: inout ByteReader) throws(GATTError) -> RecordBound {
        let at = reader.offset
        switch try reader.uint8("operand.filter_type") {
        case 1: return .sequenceNumber(try reader.uint16("operand.value"))
        case 2: return .userFacingTime(try reader.dateTime("operand.value"))
        default: throw reader.error(.reservedValue, "operand.filter_type", at: at)
        }
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        switch self {
        case .reportStoredRecords(let filter): Self.append(.reportStoredRecords, filter, to: &bytes)
        case .deleteStoredRecords(let filter): Self.append(.deleteStoredRecords, filter, to: &bytes)
        case .reportNumberOfStoredRecords(let filter): Self.append(.reportNumberOfStoredRecords, filter, to: &bytes)
        case .abortOperation:
            bytes = [RACPOpCode.abortOperation.rawValue, 0]
        case .numberOfStoredRecordsResponse(let count):
            bytes = [RACPOpCode.numberOfStoredRecordsResponse.rawValue, 0]
            bytes.appendLE(count)
        case .responseCode(let request, let response):
            bytes = [RACPOpCode.responseCode.rawValue, 0, request.rawValue, response.rawValue]
        }
        return bytes
    }

    private static func append(_ opCode: RACPOpCode, _ filter: RecordFilter, to bytes: inout [UInt8]) {
        bytes.append(opCode.rawValue)
        func append(_ bound: RecordBound) {
            switch bound {
            case .sequenceNumber(let number):
                bytes.append(1)
                bytes.appendLE(number)
            case .userFacingTime(let time):
                bytes.append(2)
                time.append(to: &bytes)
            }
        }
        switch filter {
        case .all: bytes.append(1)
        case .lessThanOrEqual(let bound):
            bytes.append(2)
            append(bound)
        case .greaterThanOrEqual(let bound):
            bytes.append(3)
            append(bound)
        case .sequenceNumbers(let range):
            bytes.append(contentsOf: [4, 1])
            bytes.appendLE(range.lowerBound)
            bytes.appendLE(range.upperBound)
        case .userFacingTimes(let from, let through):
            bytes.append(contentsOf: [4, 2])
            from.append(to: &bytes)
            through.append(to: &bytes)
        case .first: bytes.append(5)
        case .last: bytes.append(6)
        }
    }
}
