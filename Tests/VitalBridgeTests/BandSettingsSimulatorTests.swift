import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// The simulated band keeps its settings as a real one does: set, then read back through the driver; erased by a
/// reset (issue 52).
@Suite("Simulated smartband: settings kept, read back and reset")
struct BandSettingsSimulatorTests {
    @Test("each setting set through the driver is read back as set, and only what was named changed")
    func setThenGet() async throws {
        try await BandDriverStateTests.withBand { driver, sink in
            #expect(try await driver.hardwareOptions(storingInto: sink) == .factory(for: .fitPro9614N))
            #expect(try await driver.alarms(storingInto: sink) == Array(repeating: nil, count: 8))
            #expect(try await driver.sedentaryReminder(storingInto: sink) == .factory)
            #expect(try await driver.personalInfo(storingInto: sink) == nil)
            #expect(try await driver.sportTargets(storingInto: sink) == nil)

            let options = try await driver.changeHardwareOptions(
                .init(units: .imperial, backlight: BandHourRange(start: 21, end: 6)), storingInto: sink)
            #expect(
                try await driver.changeHardwareOptions(.init(clock: .twelveHour), storingInto: sink)
                    == (try BandHardwareOptions(
                        units: .imperial, clock: .twelveHour, backlightStart: 21, backlightEnd: 6)))
            #expect(options.units == .imperial)
            let alarm = try BandAlarm(id: 5, isOn: true, hour: 6, minute: 30, weekdays: [.repeatsWeekly, .monday])
            try await driver.run(.setAlarm(alarm), storingInto: sink)
            #expect(try await driver.alarms(storingInto: sink)[5] == alarm)
            #expect(try await driver.alarms(storingInto: sink).compactMap { $0 } == [alarm])
            let reminder = try await driver.changeSedentaryReminder(
                .init(isOn: true, days: .everyDay), storingInto: sink)
            #expect(try await driver.sedentaryReminder(storingInto: sink) == reminder)
            let wearer = try BandPersonalInfo(gender: .woman, height: 168, weight: 60, age: 41, stepTarget: 8_000)
            try await driver.run(.setPersonalInfo(wearer), storingInto: sink)
            #expect(
                try await driver.changePersonalInfo(.init(weight: 61), storingInto: sink)
                    == (try BandPersonalInfo(gender: .woman, height: 168, weight: 61, age: 41, stepTarget: 8_000)))
            let targets = try await driver.changeSportTargets(
                .init(targets: [(.walk, 300), (BandSport(rawValue: 0x88), 500)]), storingInto: sink)
            #expect(try await driver.sportTargets(storingInto: sink) == targets)
            // everything read back is what the last writes said
            #expect(try await driver.hardwareOptions(storingInto: sink).clock == .twelveHour)
            #expect(try await driver.personalInfo(storingInto: sink)?.weight == 61)
        }
    }

    @Test("a reset erases every setting back to the factory's, as it erases the band's memory")
    func resetErases() async throws {
        try await BandDriverStateTests.withBand { driver, sink in
            _ = try await driver.changeHardwareOptions(.init(units: .imperial), storingInto: sink)
            try await driver.run(
                .setAlarm(try BandAlarm(id: 0, isOn: true, hour: 7, minute: 0, weekdays: .monday)), storingInto: sink)
            _ = try await driver.changeSedentaryReminder(.init(startHour: 10), storingInto: sink)
            try await driver.run(
                .setPersonalInfo(
                    try BandPersonalInfo(gender: .man, height: 180, weight: 80, age: 50, stepTarget: 9_000)),
                storingInto: sink)
            _ = try await driver.changeSportTargets(.init(targets: [(.walk, 100)]), storingInto: sink)
            try await driver.run(.reset, storingInto: sink)
            #expect(try await driver.hardwareOptions(storingInto: sink) == .factory(for: .fitPro9614N))
            #expect(try await driver.alarms(storingInto: sink) == Array(repeating: nil, count: 8))
            #expect(try await driver.sedentaryReminder(storingInto: sink) == .factory)
            #expect(try await driver.personalInfo(storingInto: sink) == nil)
            #expect(try await driver.sportTargets(storingInto: sink) == nil)
        }
    }

    @Test("a band without a background choice refuses options that name one, and keeps its options")
    func backgroundRefused() async throws {
        try await BandDriverStateTests.withBand { driver, sink in
            let white = try BandHardwareOptions(units: .imperial, whiteBackground: true)
            let error = await #expect(throws: DeviceError.self) {
                try await driver.run(.setHardwareOptions(white), storingInto: sink)
            }
            #expect(error?.code == .deviceReported)
            #expect(try await driver.hardwareOptions(storingInto: sink) == .factory(for: .fitPro9614N))
        }
    }
}
