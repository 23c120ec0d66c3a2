/// The User Data Service (0x181C): how a multi-user device keeps its users apart.
///
/// A host registers a user on the device (``UserControlPoint/registerNewUser(consentCode:)``, answered with the new
/// user's index), or proves it may act as a user already there (``UserControlPoint/consent(userIndex:consentCode:)``);
/// only then may it read and write that user's data (``UserIndex``, ``DatabaseChangeIncrement`` and the user-data
/// characteristics: ``FirstName``, ``Age``, ``DateOfBirth``, ``Gender``, ``Height``, ``UserWeight``) and does the
/// device send that user's stored measurements. A read of user data without consent fails with the ATT error
/// ``userDataAccessNotPermitted``.
public enum UserDataService {
    /// The service's UUID.
    public static let uuid: UInt16 = 0x181C
    /// The ATT error a device answers a read or write of user data with before a consent (0x80).
    public static let userDataAccessNotPermitted: UInt8 = 0x80
    /// The highest consent code: codes are 0–9999.
    public static let maximumConsentCode: UInt16 = 9999
    /// The user index of the unknown user (a guest), in User Index and in a measurement's User ID.
    public static let unknownUser: UInt8 = 0xFF
}

/// A User Control Point op code. Open: a response echoes the request's op code, which may be one this version does
/// not know.
public struct UCPOpCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let registerNewUser = Self(rawValue: 0x01)
    public static let consent = Self(rawValue: 0x02)
    public static let deleteUserData = Self(rawValue: 0x03)
    public static let listAllUsers = Self(rawValue: 0x04)
    public static let deleteUser = Self(rawValue: 0x05)
    public static let responseCode = Self(rawValue: 0x20)

    /// The op code's SIG name in words, e.g. `register new user`, or `op code 9` for one this version does not know.
    public var description: String {
        switch self {
        case .registerNewUser: "register new user"
        case .consent: "consent"
        case .deleteUserData: "delete user data"
        case .listAllUsers: "list all users"
        case .deleteUser: "delete user"
        case .responseCode: "response code"
        default: "op code \(rawValue)"
        }
    }
}

/// A User Control Point response value. Open: a client must accept values it does not know.
public struct UCPResponseValue: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = Self(rawValue: 0x01)
    public static let opCodeNotSupported = Self(rawValue: 0x02)
    public static let invalidParameter = Self(rawValue: 0x03)
    /// Register New User: the device has no free user slot; Delete User Data: nothing was deleted.
    public static let operationFailed = Self(rawValue: 0x04)
    /// Consent: the consent code is not that user's, or the device refuses more tries.
    public static let userNotAuthorized = Self(rawValue: 0x05)

    public var description: String {
        switch self {
        case .success: "success"
        case .opCodeNotSupported: "op code not supported"
        case .invalidParameter: "invalid parameter"
        case .operationFailed: "operation failed"
        case .userNotAuthorized: "user not authorized"
        default: "response value \(rawValue)"
        }
    }
}

/// User Control Point (0x2A9F): the requests a host writes and the responses the device indicates.
///
/// Requests: Register New User (`01`, consent code uint16), Consent (`02`, user index uint8, consent code uint16),
/// Delete User Data (`03`: the data of the user consented as), List All Users (`04`) and Delete User (`05`, user
/// index, 255 for every user). A consent code is 0–9999; a larger one is rejected as out of range. A response is
/// `20`, the request's op code and a ``UCPResponseValue``; a successful Register New User adds the new user's index,
/// List All Users the number of users, Delete User the index deleted — those three are their own cases, so that
/// ``response(request:value:)`` with one of them and ``UCPResponseValue/success`` is no value a device sends.
public enum UserControlPoint: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A9F
    public static let name = "User Control Point"

    case registerNewUser(consentCode: UInt16)
    case consent(userIndex: UInt8, consentCode: UInt16)
    case deleteUserData
    case listAllUsers
    case deleteUser(userIndex: UInt8)
    /// A response without a parameter: every failure, and the success of Consent and Delete User Data.
    case response(request: UCPOpCode, value: UCPResponseValue)
    /// Register New User succeeded: the device's index for the new user.
    case newUserRegistered(userIndex: UInt8)
    /// List All Users succeeded: how many users the device holds.
    case usersListed(count: UInt8)
    /// Delete User succeeded: the index deleted (255: every user).
    case userDeleted(userIndex: UInt8)

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        switch UCPOpCode(rawValue: try reader.uint8("op_code")) {
        case .registerNewUser: self = .registerNewUser(consentCode: try Self.consentCode(&reader))
        case .consent:
            let index = try reader.uint8("parameter.user_index")
            self = .consent(userIndex: index, consentCode: try Self.consentCode(&reader))
        case .deleteUserData: self = .deleteUserData
        case .listAllUsers: self = .listAllUsers
        case .deleteUser: self = .deleteUser(userIndex: try reader.uint8("parameter.user_index"))
        case .responseCode:
            let request = UCPOpCode(rawValue: try reader.uint8("response.request_op_code"))
            let value = UCPResponseValue(rawValue: try reader.uint8("response.response_value"))
            switch (request, value) {
            case (.registerNewUser, .success):
                self = .newUserRegistered(userIndex: try reader.uint8("response.parameter.user_index"))
            case (.listAllUsers, .success):
                self = .usersListed(count: try reader.uint8("response.parameter.number_of_users"))
            case (.deleteUser, .success):
                self = .userDeleted(userIndex: try reader.uint8("response.parameter.user_index"))
            default: self = .response(request: request, value: value)
            }
        default: throw reader.error(.reservedValue, "op_code", at: 0)
        }
        try reader.finish()
    }

    private static func consentCode(_ reader: inout ByteReader) throws(GATTError) -> UInt16 {
        let code = try reader.uint16("parameter.consent_code")
        guard code <= UserDataService.maximumConsentCode else {
            throw reader.error(.invalidValue, "parameter.consent_code", at: reader.offset - 2)
        }
        return code
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        switch self {
        case .registerNewUser(let code):
            bytes = [UCPOpCode.registerNewUser.rawValue]
            bytes.appendLE(code)
        case .consent(let index, let code):
            bytes = [UCPOpCode.consent.rawValue, index]
            bytes.appendLE(code)
        case .deleteUserData: bytes = [UCPOpCode.deleteUserData.rawValue]
        case .listAllUsers: bytes = [UCPOpCode.listAllUsers.rawValue]
        case .deleteUser(let index): bytes = [UCPOpCode.deleteUser.rawValue, index]
        case .response(let request, let value):
            bytes = [UCPOpCode.responseCode.rawValue, request.rawValue, value.rawValue]
        case .newUserRegistered(let index):
            bytes = [UCPOpCode.responseCode.rawValue, UCPOpCode.registerNewUser.rawValue, 1, index]
        case .usersListed(let count):
            bytes = [UCPOpCode.responseCode.rawValue, UCPOpCode.listAllUsers.rawValue, 1, count]
        case .userDeleted(let index):
            bytes = [UCPOpCode.responseCode.rawValue, UCPOpCode.deleteUser.rawValue, 1, index]
        }
        return bytes
    }

    /// The request this value answers and how, for every response; `nil` for a request.
    public var answer: (request: UCPOpCode, value: UCPResponseValue)? {
        switch self {
        case .response(let request, let value): (request, value)
        case .newUserRegistered: (.registerNewUser, .success)
        case .usersListed: (.listAllUsers, .success)
        case .userDeleted: (.deleteUser, .success)
        case .registerNewUser, .consent, .deleteUserData, .listAllUsers, .deleteUser: nil
        }
    }
}

/// User Index (0x2A9A): the index of the user the host consented as (255: the unknown user, before any consent).
public struct UserIndex: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A9A
    public static let name = "User Index"

    public var index: UInt8
    public init(_ index: UInt8) { self.index = index }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        index = try reader.uint8("user_index")
        try reader.finish()
    }

    public func encoded() -> [UInt8] { [index] }
}

/// Database Change Increment (0x2A99): a user's data version on the device. Whoever changes the user's data (the
/// device, or a host that writes it) increments it; a host that finds a larger value than the one it last wrote
/// knows the device's side changed.
public struct DatabaseChangeIncrement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A99
    public static let name = "Database Change Increment"

    public var value: UInt32
    public init(_ value: UInt32) { self.value = value }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        value = try reader.uint32("database_change_increment")
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(value)
        return bytes
    }
}

/// First Name (0x2A8A): UTF-8 text without a terminator; bytes that are not UTF-8 are rejected.
public struct FirstName: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A8A
    public static let name = "First Name"

    public var text: String
    public init(_ text: String) { self.text = text }

    public init(bytes: [UInt8]) throws(GATTError) {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw GATTError(.invalidValue, characteristic: Self.name, field: "first_name", offset: 0)
        }
        self.text = text
    }

    public func encoded() -> [UInt8] { Array(text.utf8) }
}

/// Age (0x2A80): whole years.
public struct Age: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A80
    public static let name = "Age"

    public var years: UInt8
    public init(years: UInt8) { self.years = years }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        years = try reader.uint8("age")
        try reader.finish()
    }

    public func encoded() -> [UInt8] { [years] }
}

/// Date of Birth (0x2A85): year (1582–9999), month (1–12) and day (1–31), each 0 when unknown (4 bytes).
public struct DateOfBirth: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A85
    public static let name = "Date of Birth"

    public var year: UInt16
    public var month: UInt8
    public var day: UInt8

    public init(year: UInt16, month: UInt8, day: UInt8) {
        (self.year, self.month, self.day) = (year, month, day)
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        year = try reader.uint16("year")
        month = try reader.uint8("month")
        day = try reader.uint8("day")
        try reader.finish()
        // the same ranges as a Date Time's date
        let date = DateTime(year: year, month: month, day: day, hours: 0, minutes: 0, seconds: 0)
        if let (field, offset) = date.invalidField {
            throw GATTError(.invalidValue, characteristic: Self.name, field: field, offset: offset)
        }
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(year)
        bytes += [month, day]
        return bytes
    }
}

/// Gender (0x2A8C): 0 male, 1 female, 2 unspecified; 3–255 are reserved and rejected.
public enum Gender: UInt8, GATTCharacteristic, CaseIterable {
    case male = 0
    case female = 1
    case unspecified = 2

    public static let uuid: UInt16 = 0x2A8C
    public static let name = "Gender"

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let raw = try reader.uint8("gender")
        try reader.finish()
        guard let gender = Gender(rawValue: raw) else {
            throw GATTError(.reservedValue, characteristic: Self.name, field: "gender", offset: 0)
        }
        self = gender
    }

    public func encoded() -> [UInt8] { [rawValue] }
}

/// Height (0x2A8E): a user's height in 0.01 m.
public struct Height: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A8E
    public static let name = "Height"

    public var centimetres: UInt16
    public init(centimetres: UInt16) { self.centimetres = centimetres }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        centimetres = try reader.uint16("height")
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(centimetres)
        return bytes
    }
}

/// Weight (0x2A98): a user's weight as the user data keeps it, in 0.005 kg (the Weight Scale's SI resolution).
public struct UserWeight: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A98
    public static let name = "Weight"

    public var weight: MassValue
    public init(_ weight: MassValue) { self.weight = weight }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        weight = MassValue(raw: try reader.uint16("weight"))
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(weight.raw)
        return bytes
    }
}
