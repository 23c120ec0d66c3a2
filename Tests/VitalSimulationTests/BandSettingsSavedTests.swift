import Testing
import VitalCore
import VitalDevices

@testable import VitalSimulation

/// A simulated band's settings are saved with the world's state, each as the command that writes it; a state saved
/// before bands kept settings still loads (issue 52).
@Suite("Simulated smartband: settings saved with the world's state")
struct BandSettingsSavedTests {
    static let through = Timestamp(parsing: "2026-11-20 12:00:00")!

    static func state(_ settings: BandSettings) -> DeviceState {
        var band = BandState(nextSequence: 7, recordedThrough: through)
        band.settings = settings
        return DeviceState(
            records: [], nextSequenceNumber: 1, battery: 90, generator: SeededGenerator(seed: 1),
            measurementsTaken: 0, spentFailures: [], boundUserID: nil, swim: false, band: band)
    }

    static func settings() throws -> BandSettings {
        BandSettings(
            options: try BandHardwareOptions(units: .imperial, whiteBackground: false),
            alarms: [
                try BandAlarm(id: 7, isOn: false, hour: 23, minute: 59, weekdays: .sunday),
                try BandAlarm(id: 0, isOn: true, hour: 6, minute: 30, weekdays: [.repeatsWeekly, .everyDay]),
            ],
            sedentary: try BandSedentaryReminder(isOn: true, startHour: 8, endHour: 20, weekdays: .everyDay),
            personalInfo: try BandPersonalInfo(gender: .woman, height: 168, weight: 60, age: 41, stepTarget: 8_000),
            sportTargets: try BandSportTargets([(.walk, 300), (BandSport(rawValue: 0x88), 500)]))
    }

    @Test("every setting is read back from the saved state exactly, alarms by id")
    func roundTrip() throws {
        let state = Self.state(try Self.settings())
        #expect(try DeviceState(json: state.json) == state)
        #expect(state.band?.settings.alarms.map(\.id) == [0, 7])
        let line = String(decoding: state.json.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        #expect(
            line.contains(#""options":"10010001160700000101""#)
                && line.contains(#""personalInfo":"0f01a83c29401f0000""#))
        // a band never set saves no settings at all
        #expect(!String(decoding: Self.state(BandSettings()).json, as: UTF8.self).contains("settings"))
    }

    @Test("a state saved before bands kept settings loads with none set")
    func olderState() throws {
        let json = #"""
            {"band":{"cameraMode":false,"hourlyHeartRate":false,"itemCount":0,"nextSequence":7,"recordedThrough":"2026-11-20 12:00:00","sportData":true},"battery":90,"generator":{"state":1},"measurementsTaken":0,"nextSequenceNumber":1,"recordCount":0,"spentFailures":[],"swim":false}

            """#
        let state = try DeviceState(json: Array(json.utf8))
        #expect(state.band?.settings == BandSettings() && state.band?.sportData == true)
    }

    @Test(
        "a saved setting that is not the command writing it is refused by its path",
        arguments: [
            (#"{"options":"09010911fc"}"#, "state.band.settings.options", "is not the command that writes it"),
            (#"{"sedentary":"zz"}"#, "state.band.settings.sedentary", "is not hexadecimal"),
            (#"{"alarms":["0807010106"]}"#, "state.band.settings.alarms[0]", "is not a band command"),
            (#"{"alarms":["08000101061ec4","08000101071ec4"]}"#, "state.band.settings.alarms", "has alarm 0 twice"),
            (#"{"volume":"00"}"#, "state.band.settings.volume", "is not a known field"),
        ])
    func refused(settings: String, path: String, message: String) throws {
        let json =
            #"{"band":{"itemCount":0,"nextSequence":7,"recordedThrough":"2026-11-20 12:00:00","settings":\#(settings)},"#
            + #""battery":90,"generator":{"state":1},"measurementsTaken":0,"nextSequenceNumber":1,"recordCount":0,"#
            + #""spentFailures":[],"swim":false}"# + "\n"
        #expect(
            performing: { try DeviceState(json: Array(json.utf8)) },
            throws: { error in
                guard let error = error as? FleetError else { return false }
                return error.path == path && error.message.hasPrefix(message)
            })
    }
}
