import Testing
import VitalCore

@testable import VitalStore

/// A record a device sends again in a later session has the same device time and values, but its corrected time
/// may be a second or two apart (the clock's offset is read to the second): it is the stored reading, never a
/// second one.
@Suite("Readings sent again with another clock offset")
struct ResentReadingTests {
    static let device = MACAddress("004D3208D308")!
    static let reported = Timestamp(secondsSince1970: 1_795_064_400)

    /// A glucose of `value` the device dated `reported`, corrected by `offset`.
    static func glucose(_ value: Double = 104, offset: Int64, reported: Timestamp = reported)
        -> Reading
    {
        var reading = Reading.glucose(
            GlucoseReading(
                mgPerDeciliter: value,
                measuredAt: Timestamp(secondsSince1970: reported.secondsSince1970 - offset)))
        reading.annotations.deviceTime = reported
        return reading
    }

    /// A weighing of 71.2 kg the scale dated `reported`, with a body composition when `fat` is given, corrected by
    /// `offset`.
    static func weight(fat: Double?, offset: Int64) -> Reading {
        var reading = Reading.weight(
            WeightReading(
                kilograms: 71.2,
                measuredAt: Timestamp(secondsSince1970: reported.secondsSince1970 - offset),
                bodyComposition: fat.map { BodyComposition(bodyFatPercentage: $0) }))
        reading.annotations.deviceTime = reported
        return reading
    }

    @Test(
        "corrected up to 2 s apart, alone or in a batch: the stored reading's id, nothing stored twice",
        arguments: [-2, -1, 1, 2] as [Int64])
    func sameReading(shift: Int64) throws {
        let store = try VitalStore()
        let ids = try store.readings.store([Self.glucose(offset: -7200)], device: Self.device)
        #expect(try store.readings.store([Self.glucose(offset: -7200 + shift)], device: Self.device) == ids)
        let later = Self.glucose(120, offset: -7200, reported: Timestamp(secondsSince1970: 1_795_068_000))
        let batch = try store.readings.store([Self.glucose(offset: -7200 + shift), later], device: Self.device)
        #expect(batch[0] == ids[0])
        #expect(try store.readings.all().count == 2)
    }

    @Test(
        "corrected in one session and not in the other (an offset of 0 there), either first, alone or in a batch: the stored reading",
        arguments: [-2, -1, 1, 2] as [Int64], [false, true])
    func correctedOnce(offset: Int64, correctedFirst: Bool) throws {
        let store = try VitalStore()
        var uncorrected = Self.glucose(offset: 0)
        uncorrected.annotations.deviceTime = nil
        let corrected = Self.glucose(offset: offset)
        let (first, again) = correctedFirst ? (corrected, uncorrected) : (uncorrected, corrected)
        let ids = try store.readings.store([first], device: Self.device)
        #expect(try store.readings.store([again], device: Self.device) == ids)
        let later = Self.glucose(120, offset: 0, reported: Timestamp(secondsSince1970: 1_795_068_000))
        #expect(try store.readings.store([again, later], device: Self.device)[0] == ids[0])
        #expect(try store.readings.all().map(\.reading) == [first, later])
    }

    /// A glucose of `value` dated as the device gave it, by a session that could not read its clock
    /// (`timeUnverified`) or read it right (`unverified` false: an offset of 0).
    static func asGiven(_ value: Double = 104, unverified: Bool) -> Reading {
        var reading = glucose(value, offset: 0)
        reading.annotations.deviceTime = nil
        if unverified { reading.annotations.status.insert(.timeUnverified) }
        return reading
    }

    @Test(
        "stored as the device dated it (its clock unread), then corrected by another session by 1 s to a day, alone or in a batch: the stored reading, unchanged",
        arguments: [1, -2, 3, -3, 3600, -7200, 86_400] as [Int64])
    func storedUnverifiedThenCorrected(offset: Int64) throws {
        let store = try VitalStore()
        let first = Self.asGiven(unverified: true)
        let ids = try store.readings.store([first], device: Self.device)
        #expect(try store.readings.store([Self.glucose(offset: offset)], device: Self.device) == ids)
        let later = Self.glucose(120, offset: offset, reported: Timestamp(secondsSince1970: 1_795_068_000))
        let batch = try store.readings.store([later, Self.glucose(offset: offset)], device: Self.device)
        #expect(batch[1] == ids[0])
        #expect(try store.readings.all().map(\.reading) == [first, later].sorted { $0.measuredAt < $1.measuredAt })
        // other values at that device time: another reading
        try store.readings.store([Self.glucose(105, offset: offset)], device: Self.device)
        #expect(try store.readings.all().count == 3)
    }

    @Test(
        "stored unverified and sent again with the clock right (an offset of 0), or the other way round: the stored reading",
        arguments: [false, true])
    func unverifiedAndOffsetZero(unverifiedFirst: Bool) throws {
        let store = try VitalStore()
        let (first, again) = (Self.asGiven(unverified: unverifiedFirst), Self.asGiven(unverified: !unverifiedFirst))
        let ids = try store.readings.store([first], device: Self.device)
        #expect(try store.readings.store([again], device: Self.device) == ids)
        #expect(
            try store.readings.store([again, Self.asGiven(120, unverified: false)], device: Self.device)[0] == ids[0])
        #expect(try store.readings.all().count == 2)
    }

    @Test(
        "a reading not marked unverified at a device time more than 2 s from the corrected one: another reading (the hub dated it, or the clock was right then and set since)",
        arguments: [3, -3, 3600] as [Int64])
    func verifiedFarAway(offset: Int64) throws {
        let store = try VitalStore()
        try store.readings.store([Self.asGiven(unverified: false)], device: Self.device)
        try store.readings.store([Self.glucose(offset: offset)], device: Self.device)
        #expect(try store.readings.all().count == 2)
    }

    @Test(
        "a new measurement at the time stamp of a reading stored corrected, the clock set back since, equal values: stored, not taken for the old one",
        arguments: [3, 60, 3600] as [Int64])
    func newAtOldStamp(offset: Int64) throws {
        let store = try VitalStore()
        // the clock ran `offset` ahead: the reading stored at its true time, its time stamp kept
        let old = Self.glucose(offset: offset)
        try store.readings.store([old], device: Self.device)
        // the hub set the clock: `offset` later the device shows that time stamp again, and it is right now
        for new in [Self.asGiven(unverified: false), Self.asGiven(unverified: true)] {
            try store.readings.store([new], device: Self.device)
        }
        #expect(try store.readings.all().map(\.reading) == [old, Self.asGiven(unverified: false)])
    }

    @Test(
        "stored corrected, sent again by a session that could not read the clock a second or two away: the stored reading",
        arguments: [-2, -1, 1, 2] as [Int64])
    func correctedThenUnverified(offset: Int64) throws {
        let store = try VitalStore()
        let ids = try store.readings.store([Self.glucose(offset: offset)], device: Self.device)
        #expect(try store.readings.store([Self.asGiven(unverified: true)], device: Self.device) == ids)
        #expect(try store.readings.all().map(\.reading) == [Self.glucose(offset: offset)])
    }

    @Test(
        "a weight stored as the scale dated it, its composition sent corrected by an hour: completed where it was stored"
    )
    func unverifiedWeightInParts() throws {
        let store = try VitalStore()
        var first = Self.weight(fat: nil, offset: 0)
        first.annotations.deviceTime = nil
        first.annotations.status.insert(.timeUnverified)
        let ids = try store.readings.store([first], device: Self.device, merging: VitalStoreTests.weightParts)
        let again = try store.readings.store(
            [Self.weight(fat: 24.5, offset: 3600)], device: Self.device, merging: VitalStoreTests.weightParts)
        #expect(again == ids)
        var completed = Self.weight(fat: 24.5, offset: 0)
        completed.annotations.deviceTime = nil
        completed.annotations.status.insert(.timeUnverified)
        #expect(try store.readings.all().map(\.reading) == [completed])
    }

    @Test(
        "a weight and its body composition sent again corrected a second or two apart, either first: one reading, completed where it was stored",
        arguments: [-2, -1, 1, 2] as [Int64], [false, true])
    func weightInParts(shift: Int64, compositionFirst: Bool) throws {
        let store = try VitalStore()
        let (first, again) =
            compositionFirst
            ? (Self.weight(fat: 24.5, offset: 3600), Self.weight(fat: nil, offset: 3600 + shift))
            : (Self.weight(fat: nil, offset: 3600), Self.weight(fat: 24.5, offset: 3600 + shift))
        let ids = try store.readings.store([first], device: Self.device, merging: VitalStoreTests.weightParts)
        #expect(try store.readings.store([again], device: Self.device, merging: VitalStoreTests.weightParts) == ids)
        #expect(try store.readings.all().map(\.reading) == [Self.weight(fat: 24.5, offset: 3600)])
        // and again, in a batch with a reading of its own
        let later = Self.glucose(offset: 3600, reported: Timestamp(secondsSince1970: 1_795_068_000))
        let batch = try store.readings.store([again, later], device: Self.device, merging: VitalStoreTests.weightParts)
        #expect(batch[0] == ids[0])
        #expect(try store.readings.all().count == 2)
    }

    @Test(
        "a weight the user deleted, completed by its composition re-sent a second apart: absorbed, neither revised nor back"
    )
    func deletedWeightInParts() throws {
        let store = try VitalStore()
        let ids = try store.readings.store(
            [Self.weight(fat: nil, offset: 3600)], device: Self.device, merging: VitalStoreTests.weightParts)
        try store.readings.delete(ids[0], reason: "not me", at: Self.reported)
        let end = try store.feed.end()
        let again = try store.readings.store(
            [Self.weight(fat: 24.5, offset: 3601)], device: Self.device, merging: VitalStoreTests.weightParts)
        #expect(again == ids)
        #expect(try store.feed.end() == end)
        #expect(try store.readings.all().isEmpty)
    }

    @Test("the same mass a second apart whose device gave another time: another weighing, not its parts")
    func otherWeighing() throws {
        let store = try VitalStore()
        try store.readings.store(
            [Self.weight(fat: nil, offset: 3600)], device: Self.device, merging: VitalStoreTests.weightParts)
        var other = Self.weight(fat: 24.5, offset: 3601)
        other.annotations.deviceTime = Timestamp(secondsSince1970: Self.reported.secondsSince1970 - 1)
        try store.readings.store([other], device: Self.device, merging: VitalStoreTests.weightParts)
        #expect(try store.readings.all().count == 2)
    }

    @Test(
        "not corrected, one second apart with the same values: two readings (the device gave two times)")
    func uncorrectedNeighbours() throws {
        let store = try VitalStore()
        for second in [0, 1] as [Int64] {
            var reading = Self.glucose(offset: -second)
            reading.annotations.deviceTime = nil
            try store.readings.store([reading], device: Self.device)
        }
        #expect(try store.readings.all().count == 2)
    }

    @Test("another device time, other values, 3 s apart or a reading the hub did not correct: another reading")
    func otherReadings() throws {
        let store = try VitalStore()
        try store.readings.store([Self.glucose(offset: -7200)], device: Self.device)
        let other = Timestamp(secondsSince1970: Self.reported.secondsSince1970 + 1)
        try store.readings.store([Self.glucose(offset: -7199, reported: other)], device: Self.device)
        try store.readings.store([Self.glucose(105, offset: -7199)], device: Self.device)
        try store.readings.store([Self.glucose(offset: -7197)], device: Self.device)
        var uncorrected = Self.glucose(offset: -7199)
        uncorrected.annotations.deviceTime = nil
        try store.readings.store([uncorrected], device: Self.device)
        #expect(try store.readings.all().count == 5)
    }
}
