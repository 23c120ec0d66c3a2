import HealthGATT
import Locking
import Testing
import VitalCore
import VitalDevices

private let g = GATTCharacteristics.self

@Suite("Activity monitor driver against a scripted AM4")
struct ActivityMonitorScriptTests {
    static let table = [g.vendorStatus, g.vendorControlPoint, g.activityRecords]
    static let days = [
        ActivityDay(
            date: CalendarDate(year: 2026, month: 11, day: 18)!, steps: 8_421, calories: 312, sleepMinutes: 412,
            sleepEfficiency: 88, swimMinutes: 20, swimCalories: 150),
        ActivityDay(
            date: CalendarDate(year: 2026, month: 11, day: 19)!, steps: 70_000, calories: 2_100, sleepMinutes: 380,
            sleepEfficiency: 91),
    ]

    func driver(_ script: [ScriptStep]) -> (any DeviceDriver, ScriptedConnection) {
        let connection = ScriptedConnection(script, offering: Self.table)
        return (
            makeDriver(for: DeviceCatalog.entry(for: .am4), connection: connection) { time(12, 0).host }, connection
        )
    }

    @Test("the vendor activity day record has its documented bytes")
    func dayBytes() {
        // 2026-11-18, 8421 steps (u32), 312 kcal, 412 min asleep, 88 %, swim 20 min and 150 kcal
        #expect(
            ActivityDayRecord(day: Self.days[0]).encoded == [
                0xEA, 0x07, 0x0B, 0x12, 0xE5, 0x20, 0x00, 0x00, 0x38, 0x01, 0x9C, 0x01, 0x58, 0x14, 0x00, 0x96, 0x00,
            ])
    }

    @Test("preparing binds the caller's profile with the bind command's bytes")
    func bind() async throws {
        let (driver, connection) = driver([
            // bind (06): user 1234 (u32), 40 years, male (1), 180 cm, 75 kg, swim on (1), kilometres (10)
            .write(g.vendorControlPoint, [0x06, 0xD2, 0x04, 0x00, 0x00, 40, 0x01, 180, 75, 0x01, 0x0A]),
            .notify(g.vendorStatus, [0x05, 0x06, 0x00]),
        ])
        let profile = ActivityProfile(
            userID: 1234, age: 40, sex: .male, height: 180, weight: 75, swim: .on, distanceUnit: .kilometre)
        try await driver.prepare(for: DeviceSession(caller: "app", profile: profile, time: time(8, 0).host))
        #expect(connection.unplayed == 0)
        #expect(connection.subscriptions == [g.vendorStatus])
    }

    @Test("a sync reports the days, stores them in order, then deletes exactly that many")
    func sync() async throws {
        let (driver, connection) = driver([
            .write(g.vendorControlPoint, [0x07]),
            .notify(g.activityRecords, ActivityDayRecord(day: Self.days[0]).encoded),
            .notify(g.activityRecords, ActivityDayRecord(day: Self.days[1]).encoded),
            .notify(g.vendorStatus, [0x02, 0x02, 0x00]),
            // delete activity (08), 2 days
            .write(g.vendorControlPoint, [0x08, 0x02, 0x00]), .notify(g.vendorStatus, [0x05, 0x08, 0x00]),
        ])
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 2)
        // the monitor's clock cannot be read: its days are marked timeUnverified
        #expect(
            sink.readings
                == Self.days.map {
                    var day = $0
                    day.annotations.status = .timeUnverified
                    return .activity(day)
                })
        #expect(
            connection.writes == [
                .write(g.vendorControlPoint, [0x07]), .write(g.vendorControlPoint, [0x08, 0x02, 0x00]),
            ])
        #expect(connection.unplayed == 0)
    }

    @Test("a malformed day fails the sync; nothing is stored or deleted")
    func malformed() async throws {
        var bad = ActivityDayRecord(day: Self.days[0]).encoded
        bad[12] = 101  // a sleep efficiency over 100 %
        let (driver, connection) = driver([
            .write(g.vendorControlPoint, [0x07]),
            .notify(g.activityRecords, ActivityDayRecord(day: Self.days[1]).encoded),
            .notify(g.activityRecords, bad),
        ])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.protocolViolation, message: "an activity record is malformed")) {
            try await driver.sync(into: sink) { _ in }
        }
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.vendorControlPoint, [0x07])])
    }

    @Test("a disconnect mid-transfer fails the sync; nothing is stored or deleted")
    func disconnect() async throws {
        let (driver, connection) = driver([
            .write(g.vendorControlPoint, [0x07]),
            .notify(g.activityRecords, ActivityDayRecord(day: Self.days[0]).encoded),
            .disconnect,
        ])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.disconnected, message: "the scripted link dropped")) {
            try await driver.sync(into: sink) { _ in }
        }
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.vendorControlPoint, [0x07])])
    }

    @Test("cancelled mid-transfer, the sync stops with cancelled; nothing is stored or deleted")
    func cancelled() async throws {
        let (driver, connection) = driver([
            .write(g.vendorControlPoint, [0x07]),
            .notify(g.activityRecords, ActivityDayRecord(day: Self.days[0]).encoded),
            .cancel, .notify(g.activityRecords, ActivityDayRecord(day: Self.days[1]).encoded),
        ])
        let sink = RecordingSink()
        let task = Task { try await driver.sync(into: sink) { _ in } }
        await #expect(throws: DeviceError(.cancelled, message: "the operation was cancelled")) { try await task.value }
        #expect(sink.records.isEmpty)
        #expect(connection.writes == [.write(g.vendorControlPoint, [0x07])])
    }
}

@Suite("Smartband driver against a scripted band")
struct SmartbandScriptTests {
    static let table = [g.bandControlPoint, g.bandData]
    static let today = time(12, 0).host
    static let yesterday = CalendarDate(year: 2026, month: 11, day: 19)!
    static let items: [BandItem] = [
        .dayTotals(yesterday, BandTotals(steps: 9_876, calories: 345, distance: 7_010)),
        .sleep(
            BandSleepSegment(
                date: yesterday, type: .deepSleep, start: MinuteOfDay(60)!, end: MinuteOfDay(150)!)),
        .todayTotals(BandTotals(steps: 1_234, calories: 56, distance: 900)),
    ]

    func driver(_ script: [ScriptStep], mtu: Int = 247) -> (SmartbandDriver, ScriptedConnection) {
        let connection = ScriptedConnection(script, offering: Self.table, mtu: mtu)
        let entry = DeviceCatalog.entry(for: .fitPro9614N)
        return (SmartbandDriver(entry: entry, connection: connection) { Self.today }, connection)
    }

    func item(_ sequence: UInt32, _ item: BandItem) -> ScriptStep {
        .notify(g.bandData, BandMessage.item(sequence: sequence, item).encoded())
    }

    @Test("a sync stores the pushed items, today's totals dated with the host's day, then acknowledges them")
    func sync() async throws {
        let (driver, connection) = driver([
            item(1, Self.items[0]), item(2, Self.items[1]), item(3, Self.items[2]),
            // caught up (10) at item 3
            .notify(g.bandData, [0x10, 0x03, 0x00, 0x00, 0x00]),
            // received through (14) item 3
            .write(g.bandControlPoint, [0x14, 0x03, 0x00, 0x00, 0x00]),
        ])
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 3)
        #expect(
            sink.bandBatches == [
                [
                    Self.items[0], Self.items[1],
                    .dayTotals(
                        CalendarDate(year: 2026, month: 11, day: 20)!,
                        BandTotals(steps: 1_234, calories: 56, distance: 900)),
                ]
            ])
        #expect(connection.subscriptions == [g.bandData])
        #expect(connection.unplayed == 0)
    }

    @Test("a link whose MTU cannot carry an hour of heart rate is refused before subscribing")
    func smallMTU() async throws {
        let (driver, connection) = driver([], mtu: 72)
        await #expect(
            throws: DeviceError(.unsupported, message: "the link's MTU of 72 is below the 73 a smartband's items need")
        ) { try await driver.sync(into: RecordingSink()) { _ in } }
        #expect(connection.operations.isEmpty)
    }

    @Test("items out of order fail the sync; nothing is stored or acknowledged")
    func outOfOrder() async throws {
        let (driver, connection) = driver([item(2, Self.items[0]), item(1, Self.items[1])])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.protocolViolation, message: "the band sent item 1 after item 2")) {
            try await driver.sync(into: sink) { _ in }
        }
        #expect(sink.bandBatches.isEmpty)
        #expect(connection.writes.isEmpty)
    }

    @Test("a malformed message fails the sync; nothing is stored or acknowledged")
    func malformed() async throws {
        let (driver, connection) = driver([item(1, Self.items[0]), .notify(g.bandData, [0x02, 0x02, 0x00])])
        let sink = RecordingSink()
        let error = await #expect(throws: DeviceError.self) { try await driver.sync(into: sink) { _ in } }
        #expect(error?.code == .protocolViolation)
        #expect(sink.bandBatches.isEmpty)
        #expect(connection.writes.isEmpty)
    }

    @Test("a disconnect mid-transfer keeps what arrived, unacknowledged: the band sends it again")
    func disconnect() async throws {
        let (driver, connection) = driver([item(1, Self.items[0]), .disconnect])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.disconnected, message: "the scripted link dropped")) {
            try await driver.sync(into: sink) { _ in }
        }
        #expect(sink.bandBatches == [[Self.items[0]]])
        #expect(connection.writes.isEmpty)
    }
}

@Suite("Heart-rate driver against a scripted sensor")
struct HeartRateScriptTests {
    static let table = [g.heartRateMeasurement]

    func beat(_ rate: UInt16, _ rr: [UInt16]) -> ScriptStep {
        .notify(
            g.heartRateMeasurement,
            HeartRateMeasurement(heartRate: rate, sensorContact: .detected, rrIntervals: rr).encoded())
    }

    func driver(_ script: [ScriptStep]) -> (any DeviceDriver, ScriptedConnection) {
        let connection = ScriptedConnection(script, offering: Self.table)
        let entry = DeviceCatalog.entry(for: .heartRateSensor)
        return (makeDriver(for: entry, connection: connection) { time(9, 0).host }, connection)
    }

    @Test("a recording takes beats until their RR intervals fill the seconds asked: mean rate, RR in ms")
    func record() async throws {
        // 1024 ticks = 1000 ms, 512 = 500 ms
        let (driver, connection) = driver([beat(60, [1024]), beat(62, [512, 512]), beat(70, [1024])])
        let sink = RecordingSink()
        let record = try await driver.measure(MeasureOptions(recordingSeconds: 3), into: sink) { _ in }
        let expected = Reading.heartRate(
            HeartRateReading(heartRate: 64, rrIntervals: [1000, 500, 500, 1000], measuredAt: time(9, 0).host))
        #expect(record.reading == expected)
        #expect(sink.readings == [expected])
        #expect(connection.subscriptions == [g.heartRateMeasurement])
        #expect(connection.unplayed == 0)
    }

    @Test("a malformed measurement fails the recording; nothing is stored")
    func malformed() async throws {
        let (driver, _) = driver([beat(60, [1024]), .notify(g.heartRateMeasurement, [0x10])])
        let sink = RecordingSink()
        let error = await #expect(throws: DeviceError.self) {
            try await driver.measure(MeasureOptions(recordingSeconds: 3), into: sink) { _ in }
        }
        #expect(error?.code == .protocolViolation)
        #expect(sink.records.isEmpty)
    }

    @Test("a disconnect mid-recording fails it; nothing is stored")
    func disconnect() async throws {
        let (driver, _) = driver([beat(60, [1024]), .disconnect])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.disconnected, message: "the scripted link dropped")) {
            try await driver.measure(MeasureOptions(recordingSeconds: 3), into: sink) { _ in }
        }
        #expect(sink.records.isEmpty)
    }

    @Test("a sensor keeps no records: a sync is unsupported and touches nothing")
    func sync() async throws {
        let (driver, connection) = driver([])
        await #expect(throws: DeviceError(.unsupported, message: "HRS keeps no records to sync")) {
            try await driver.sync(into: RecordingSink()) { _ in }
        }
        #expect(connection.operations.isEmpty)
    }
}
