import Testing
import VitalTestSupport

@testable import HealthGATT

@Suite("Current Time")
struct CurrentTimeTests {
    /// Friday 2026-11-27 00:30:15 and 128/256 s, set by hand: year LE, month, day, hours, minutes, seconds, day of
    /// week, fractions256, adjust reason (Current Time Service 1.1, 3.1).
    static let friday = hex("EA07 0B 1B 00 1E 0F 05 80 01")

    @Test("decodes the Exact Time 256 and the adjust reason, and encodes them back")
    func specBytes() throws {
        let value = try CurrentTime(bytes: Self.friday)
        #expect(value.dateTime == DateTime(year: 2026, month: 11, day: 27, hours: 0, minutes: 30, seconds: 15))
        #expect(value.dayOfWeek == 5 && value.fractions256 == 128 && value.adjustReason == .manualTimeUpdate)
        #expect(!value.isUnknown)
        #expect(value.encoded() == Self.friday)
        expectRoundTrip(
            CurrentTime(
                dateTime: DateTime(year: 2000, month: 1, day: 1, hours: 0, minutes: 0, seconds: 0), dayOfWeek: 6,
                fractions256: 255, adjustReason: [.externalReferenceTimeUpdate, .changeOfTimeZone, .changeOfDST]))
    }

    @Test("every truncation is short and a trailing byte is refused")
    func truncation() {
        expectEveryPrefixShort(CurrentTime.self, Self.friday)
        expectTrailingByteRejected(CurrentTime.self, Self.friday)
    }

    @Test("a clock never set reads a Date Time of zeros: unknown, not an instant")
    func zeros() throws {
        let value = try CurrentTime(bytes: hex("0000 00 00 00 00 00 00 00 00"))
        #expect(value.isUnknown && value.dayOfWeek == 0)
    }

    @Test("a reserved day of the week is refused at its offset; reserved adjust reason bits are ignored")
    func reserved() throws {
        let error = #expect(throws: GATTError.self) { try CurrentTime(bytes: hex("EA07 0B 1B 00 1E 0F 08 80 01")) }
        #expect(error?.code == .reservedValue && error?.field == "exact_time_256.day_of_week" && error?.offset == 7)
        #expect(try CurrentTime(bytes: hex("EA07 0B 1B 00 1E 0F 05 80 F1")).adjustReason == .manualTimeUpdate)
        let month = #expect(throws: GATTError.self) { try CurrentTime(bytes: hex("EA07 0D 1B 00 1E 0F 05 80 01")) }
        #expect(month?.field == "exact_time_256.date_time.month" && month?.offset == 2)
    }
}
