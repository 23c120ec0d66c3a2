import Testing
import VitalTestSupport

@testable import HealthGATT

@Suite("User Control Point")
struct UserControlPointTests {
    /// Every request and response as the User Data Service specification lays out its fields (op code, then the
    /// parameter little-endian): the consent code 1111 is `57 04`, 9999 (the largest) `0F 27`.
    static let vectors: [(UserControlPoint, [UInt8])] = [
        (.registerNewUser(consentCode: 1111), hex("01 5704")),
        (.registerNewUser(consentCode: 0), hex("01 0000")),
        (.registerNewUser(consentCode: 9999), hex("01 0F27")),
        (.consent(userIndex: 1, consentCode: 1111), hex("02 01 5704")),
        (.consent(userIndex: 2, consentCode: 2222), hex("02 02 AE08")),
        (.deleteUserData, hex("03")),
        (.listAllUsers, hex("04")),
        (.deleteUser(userIndex: 3), hex("05 03")),
        (.deleteUser(userIndex: 0xFF), hex("05 FF")),
        (.newUserRegistered(userIndex: 3), hex("20 01 01 03")),
        (.response(request: .consent, value: .success), hex("20 02 01")),
        (.response(request: .consent, value: .userNotAuthorized), hex("20 02 05")),
        (.response(request: .registerNewUser, value: .operationFailed), hex("20 01 04")),
        (.response(request: .registerNewUser, value: .invalidParameter), hex("20 01 03")),
        (.response(request: .deleteUserData, value: .success), hex("20 03 01")),
        (.usersListed(count: 2), hex("20 04 01 02")),
        (.userDeleted(userIndex: 0xFF), hex("20 05 01 FF")),
        // an op code the device does not know is echoed back, and a value this version does not know is kept
        (.response(request: UCPOpCode(rawValue: 0x09), value: .opCodeNotSupported), hex("20 09 02")),
        (.response(request: .consent, value: UCPResponseValue(rawValue: 0x80)), hex("20 02 80")),
    ]

    @Test("encodes and decodes every request and response", arguments: vectors)
    func vector(value: UserControlPoint, bytes: [UInt8]) throws {
        #expect(value.encoded() == bytes)
        #expect(try UserControlPoint(bytes: bytes) == value)
        expectEveryPrefixShort(UserControlPoint.self, bytes)
        expectTrailingByteRejected(UserControlPoint.self, bytes)
    }

    @Test("rejects reserved op codes and consent codes above 9999, naming the field")
    func bad() {
        for (bytes, code, field, offset) in [
            (hex("00"), GATTError.Code.reservedValue, "op_code", 0), (hex("06"), .reservedValue, "op_code", 0),
            (hex("1F"), .reservedValue, "op_code", 0), (hex("FF"), .reservedValue, "op_code", 0),
            (hex("01 1027"), .invalidValue, "parameter.consent_code", 1),
            (hex("02 01 FFFF"), .invalidValue, "parameter.consent_code", 2),
        ] as [([UInt8], GATTError.Code, String, Int)] {
            let error = #expect(throws: GATTError.self) { try UserControlPoint(bytes: bytes) }
            #expect(error?.code == code && error?.field == field && error?.offset == offset, "\(bytes)")
            #expect(error?.description.contains("User Control Point") == true)
        }
    }

    @Test("a response names the request it answers and how; a request answers nothing")
    func answers() {
        #expect(UserControlPoint.newUserRegistered(userIndex: 4).answer! == (.registerNewUser, .success))
        #expect(
            UserControlPoint.response(request: .consent, value: .userNotAuthorized).answer! == (
                .consent, .userNotAuthorized
            ))
        #expect(UserControlPoint.consent(userIndex: 1, consentCode: 1).answer == nil)
        #expect(UCPOpCode(rawValue: 9).description == "op code 9")
        #expect(UCPResponseValue.userNotAuthorized.description == "user not authorized")
    }

    @Test("any bytes that decode encode back to themselves", arguments: seeds)
    func roundTrip(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<500 {
            let bytes = (0..<Int.random(in: 1...5, using: &generator)).map { _ in generator.uint8() }
            guard
                let value = try? UserControlPoint(bytes: [bytes[0] % 6 == 0 ? 0x20 : bytes[0] % 6] + bytes.dropFirst())
            else { continue }
            expectRoundTrip(value)
        }
    }
}

@Suite("User data")
struct UserDataTests {
    @Test("User Index, Database Change Increment, Age, Height and Weight are little-endian numbers")
    func numbers() throws {
        #expect(try UserIndex(bytes: hex("02")) == UserIndex(2))
        #expect(try DatabaseChangeIncrement(bytes: hex("2A000000")) == DatabaseChangeIncrement(42))
        #expect(try DatabaseChangeIncrement(bytes: hex("78563412")).value == 0x1234_5678)
        #expect(try Age(bytes: hex("2C")) == Age(years: 44))
        #expect(try Height(bytes: hex("AA00")) == Height(centimetres: 170))  // 1.70 m in 0.01 m
        // 70 kg in 0.005 kg: 14,000 = 0x36B0
        #expect(try UserWeight(bytes: hex("B036")).weight.kilograms(in: .si) == 70)
        expectEveryPrefixShort(UserIndex.self, hex("02"))
        expectEveryPrefixShort(DatabaseChangeIncrement.self, hex("2A000000"))
        expectEveryPrefixShort(Height.self, hex("AA00"))
        expectEveryPrefixShort(UserWeight.self, hex("B036"))
        expectEveryPrefixShort(Age.self, hex("2C"))
        expectTrailingByteRejected(UserIndex.self, hex("02"))
        expectTrailingByteRejected(DatabaseChangeIncrement.self, hex("2A000000"))
        expectTrailingByteRejected(Height.self, hex("AA00"))
        expectTrailingByteRejected(UserWeight.self, hex("B036"))
        expectTrailingByteRejected(Age.self, hex("2C"))
        for value in [UserIndex(0xFF), UserIndex(0)] { expectRoundTrip(value) }
        for value in [DatabaseChangeIncrement(0), DatabaseChangeIncrement(.max)] { expectRoundTrip(value) }
    }

    @Test("Date of Birth: year, month, day; 0 is unknown and out-of-range fields are named at their offset")
    func dateOfBirth() throws {
        #expect(try DateOfBirth(bytes: hex("BC07 05 11")) == DateOfBirth(year: 1980, month: 5, day: 17))
        #expect(try DateOfBirth(bytes: hex("0000 00 00")) == DateOfBirth(year: 0, month: 0, day: 0))
        expectEveryPrefixShort(DateOfBirth.self, hex("BC07 05 11"))
        expectTrailingByteRejected(DateOfBirth.self, hex("BC07 05 11"))
        expectRoundTrip(DateOfBirth(year: 2016, month: 2, day: 29))
        for (bytes, field, offset) in [
            (hex("2D06 01 01"), "year", 0), (hex("1027 01 01"), "year", 0), (hex("BC07 0D 01"), "month", 2),
            (hex("BC07 01 20"), "day", 3),
        ] {
            let error = #expect(throws: GATTError.self) { try DateOfBirth(bytes: bytes) }
            #expect(error?.code == .invalidValue && error?.field == field && error?.offset == offset)
        }
    }

    @Test("Gender is 0 male, 1 female, 2 unspecified; the rest is reserved")
    func gender() throws {
        #expect(try Gender(bytes: [0]) == .male)
        #expect(try Gender(bytes: [1]) == .female)
        #expect(try Gender(bytes: [2]) == .unspecified)
        for gender in Gender.allCases { expectRoundTrip(gender) }
        expectEveryPrefixShort(Gender.self, [1])
        expectTrailingByteRejected(Gender.self, [1])
        let error = #expect(throws: GATTError.self) { try Gender(bytes: [3]) }
        #expect(error?.code == .reservedValue && error?.field == "gender")
    }

    @Test("First Name is UTF-8 without a terminator; other bytes are refused")
    func firstName() throws {
        #expect(try FirstName(bytes: Array("Ann".utf8)) == FirstName("Ann"))
        #expect(try FirstName(bytes: hex("C389 6C 6F 64 69 65")).text == "Élodie")
        #expect(try FirstName(bytes: []).text == "")
        expectRoundTrip(FirstName("Zoë 👩‍⚕️"))
        for bytes in [hex("C3"), hex("41 FF 42"), hex("ED A0 80")] {
            let error = #expect(throws: GATTError.self) { try FirstName(bytes: bytes) }
            #expect(error?.code == .invalidValue && error?.field == "first_name")
        }
    }
}
