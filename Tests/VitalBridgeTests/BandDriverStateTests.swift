import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// The smartband driver's state, switches and checked schedules against the simulated band, in process.
@Suite("Smartband driver: state, switches and schedules checked before writing (issue 37)")
struct BandDriverStateTests {
    static let day = CalendarDate(year: 2026, month: 11, day: 25)!

    /// Runs `body` with a driver connected to a fresh Fit Pro 9614N and a store for what it pushes.
    static func withBand(_ body: (SmartbandDriver, StoreSink) async throws -> Void) async throws {
        let world = try SimulatedWorld(
            fleet: Fleet(devices: [SmartbandTests.band(days: 1)]), start: SmartbandTests.start)
        let connection = try await world.connect(to: SmartbandTests.mac)
        let driver = SmartbandDriver(
            entry: DeviceCatalog.entry(for: .fitPro9614N), connection: connection, clock: { world.clock.wallTime })
        let sink = StoreSink(store: try VitalStore(), device: SmartbandTests.mac)
        do {
            try await body(driver, sink)
            await connection.disconnect()
        } catch {
            await connection.disconnect()
            throw error
        }
    }

    @Test("each switch is the band's own: state reports the bound user and each switch as set")
    func state() async throws {
        try await Self.withBand { driver, sink in
            #expect(
                try await driver.status(storingInto: sink)
                    == BandStatus(boundUserID: nil, sportData: false, hourlyHeartRate: false, cameraMode: false))
            try await driver.run(.bind(userID: 4_000_000_000), storingInto: sink)
            try await driver.run(.heartRateHourly(true), storingInto: sink)
            #expect(
                try await driver.status(storingInto: sink)
                    == BandStatus(
                        boundUserID: 4_000_000_000, sportData: false, hourlyHeartRate: true, cameraMode: false))
            try await driver.run(.sportDataSwitch(true), storingInto: sink)
            try await driver.run(.heartRateHourly(false), storingInto: sink)
            try await driver.run(.unbind, storingInto: sink)
            #expect(
                try await driver.status(storingInto: sink)
                    == BandStatus(boundUserID: nil, sportData: true, hourlyHeartRate: false, cameraMode: false))
        }
    }

    @Test("writeChecked refuses a fifth entry a day and a second at a minute by field, and writes nothing then")
    func checkedSchedules() async throws {
        try await Self.withBand { driver, sink in
            for hour in [8, 12, 16, 20] {
                try await driver.writeChecked(
                    try BandSchedule(date: Self.day, hour: hour, minute: 0, title: "Pills"), storingInto: sink)
            }
            let before = try await driver.scheduleInfo(storingInto: sink)
            #expect(before.maximumPerDay == 4 && before.slots.map(\.minute) == [480, 720, 960, 1200])
            let fifth = try BandSchedule(date: Self.day, hour: 22, minute: 0, title: "x")
            await #expect(
                performing: { try await driver.writeChecked(fifth, storingInto: sink) },
                throws: { ($0 as? BandSettingError)?.field == "schedule.date" })
            let nextDay = CalendarDate(daysSince1970: Self.day.daysSince1970 + 1)
            try await driver.writeChecked(
                try BandSchedule(date: nextDay, hour: 8, minute: 0, title: "x"), storingInto: sink)
            await #expect(
                performing: {
                    try await driver.writeChecked(
                        try BandSchedule(date: nextDay, hour: 8, minute: 0, title: "y"), storingInto: sink)
                }, throws: { ($0 as? BandSettingError)?.field == "schedule.time" })
            #expect(try await driver.scheduleInfo(storingInto: sink).slots.count == 5)
            // the band's own answer to readSchedule agrees with its info
            let answers = try await driver.run(.readSchedule(nextDay, hour: 8, minute: 0), storingInto: sink)
            #expect(answers == [.scheduleExists(true)])
        }
    }

    @Test("readScheduleInfo always answers yes (the document's rule), then the limit and no entries on an empty band")
    func scheduleInfoAlwaysYes() async throws {
        try await Self.withBand { driver, sink in
            let answers = try await driver.run(.readScheduleInfo, storingInto: sink)
            #expect(answers == [.scheduleExists(true), .scheduleInfo(maximumPerDay: 4, count: 0)])
        }
    }

    @Test("the supported sports come with the band's own name and unit for each")
    func sportNames() async throws {
        try await Self.withBand { driver, sink in
            let (list, names) = try await driver.supportedSports(storingInto: sink)
            #expect(names.map(\.sport) == list.sports && list.maximumActive == 5)
            #expect(names.first == BandSportName(sport: .walk, name: "走路", unit: "步"))
        }
    }
}
