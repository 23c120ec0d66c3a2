import HealthGATT
import Testing
import VitalCore
import VitalDevices

@testable import VitalSimulation

@Suite("Band codec: state, schedule info, sport names, and the fleet's presses (issue 37)")
struct BandStateCodecTests {
    static let day = CalendarDate(year: 2026, month: 11, day: 25)!

    /// The new messages with their documented bytes (SmartbandCodec.md).
    static let examples: [(BandMessage, [UInt8])] = [
        (
            .status(BandStatus(boundUserID: 1111, sportData: true, hourlyHeartRate: false, cameraMode: true)),
            [0x16, 0x01, 0x57, 0x04, 0x00, 0x00, 0x01, 0x00, 0x01]
        ),
        (
            .status(BandStatus(boundUserID: nil, sportData: false, hourlyHeartRate: true, cameraMode: false)),
            [0x16, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00]
        ),
        (.scheduleInfo(maximumPerDay: 4, count: 5), [0x17, 0x04, 0x05, 0x00]),
        (.scheduleSlot(BandScheduleSlot(date: day, minute: 23 * 60 + 59)), [0x18, 0xEA, 0x07, 0x0B, 0x19, 0x17, 0x3B]),
        (
            .sportName(BandSportName(sport: .walk, name: "走路", unit: "步")),
            [0x19, 0x01, 0x06, 0xE8, 0xB5, 0xB0, 0xE8, 0xB7, 0xAF, 0x03, 0xE6, 0xAD, 0xA5]
        ),
    ]

    @Test("state, schedule-info, slot and sport-name messages have their documented bytes and read back")
    func messages() throws {
        for (message, bytes) in Self.examples {
            #expect(message.encoded() == bytes)
            #expect(try BandMessage(bytes: bytes) == message)
        }
        #expect(BandCommand.getStatus.encoded == [0x15])
        #expect(try BandCommand(bytes: [0x15]) == .getStatus)
        #expect(BandCommand.readScheduleInfo.encoded == [0x0D])
    }

    @Test("every prefix of a new message is refused, and so are a byte too many and impossible values")
    func badBytes() {
        for (_, bytes) in Self.examples {
            for count in 1..<bytes.count {
                #expect(throws: GATTError.self) { try BandMessage(bytes: Array(bytes.prefix(count))) }
            }
            #expect(throws: GATTError.self) { try BandMessage(bytes: bytes + [0]) }
        }
        #expect(throws: GATTError.self) { try BandCommand(bytes: [0x15, 0x00]) }
        // bound with user 0, or not bound with a user; 24:00; a flag of 2
        for bytes: [UInt8] in [
            [0x16, 0x01, 0, 0, 0, 0, 0, 0, 0], [0x16, 0x00, 1, 0, 0, 0, 0, 0, 0],
            [0x18, 0xEA, 0x07, 0x0B, 0x19, 24, 0],
            [0x16, 0x00, 0, 0, 0, 0, 2, 0, 0],
        ] {
            #expect(throws: GATTError.self) { try BandMessage(bytes: bytes) }
        }
    }

    @Test("the sedentary reminder's repeat bit is bit 7 of its weekdays byte")
    func sedentaryRepeat() throws {
        let weekly = try BandSedentaryReminder(
            isOn: true, startHour: 9, endHour: 17, weekdays: [.repeatsWeekly, .monday, .friday])
        #expect(BandCommand.setSedentary(weekly).encoded == [0x09, 0x01, 0x09, 0x11, 0xC4])
        #expect(try BandCommand(bytes: [0x09, 0x01, 0x09, 0x11, 0xC4]) == .setSedentary(weekly))
        let once = try BandSedentaryReminder(isOn: true, startHour: 9, endHour: 17, weekdays: [.monday, .friday])
        #expect(BandCommand.setSedentary(once).encoded.last == 0x44)
        // the repeat bit alone is no day: a reminder switched on needs one
        #expect(throws: BandSettingError("sedentary.weekdays", "must have a day set for a reminder that is on")) {
            try BandSedentaryReminder(isOn: true, startHour: 9, endHour: 17, weekdays: .repeatsWeekly)
        }
    }

    @Test(
        "a schedule is checked against the minutes the band lists: schedule.time for a taken minute, schedule.date for a fifth"
    )
    func scheduleSlots() throws {
        let slots = [0, 1, 750, 1439].map { BandScheduleSlot(date: Self.day, minute: $0) }
        let fifth = try BandSchedule(date: Self.day, hour: 11, minute: 0, title: "x")
        #expect(
            performing: { try BandSchedule.check(adding: fifth, toSlots: slots) },
            throws: { ($0 as? BandSettingError)?.field == "schedule.date" })
        let taken = try BandSchedule(date: Self.day, hour: 12, minute: 30, title: "x")
        #expect(throws: BandSettingError("schedule.time", "another entry is at 2026-11-25 12:30:00 already")) {
            try BandSchedule.check(adding: taken, toSlots: Array(slots.prefix(3)))
        }
        try BandSchedule.check(adding: fifth, toSlots: Array(slots.prefix(3)))
        let nextDay = try BandSchedule(
            date: CalendarDate(year: 2026, month: 11, day: 26)!, hour: 0, minute: 0, title: "x")
        try BandSchedule.check(adding: nextDay, toSlots: slots)
        #expect(BandScheduleSlot(date: Self.day, minute: 750).description == "2026-11-25 12:30")
    }

    @Test("every simulated sport name and unit fits in one notification of the smallest band link")
    func sportNamesFit() {
        #expect(BandPeripheral.sportNames.map(\.sport) == BandSport.table.map(\.sport))
        for name in BandPeripheral.sportNames {
            #expect(BandMessage.sportName(name).encoded().count <= SmartbandGATT.minimumMTU - 3)
        }
    }

    @Test(
        "a fleet's presses are checked: smartbands only, a time and a known button",
        arguments: [
            (
                #"{"model": "BP5", "mac": "004D3208D2F4", "presses": [{"at": "2026-11-20 12:30:00", "button": "findPhone"}]}"#,
                "devices[0].presses", "is for smartbands only"
            ),
            (
                #"{"model": "FitPro9614N", "mac": "004D3208D310", "presses": [{"at": "noon", "button": "findPhone"}]}"#,
                "devices[0].presses[0].at", "is not yyyy-MM-dd HH:mm:ss"
            ),
            (
                #"{"model": "FitPro9614N", "mac": "004D3208D310", "presses": [{"at": "2026-11-20 12:30:00", "button": "sos"}]}"#,
                "devices[0].presses[0].button", "must be takePicture or findPhone"
            ),
            (
                #"{"model": "FitPro9614N", "mac": "004D3208D310", "presses": [{"at": "2026-11-20 12:30:00"}]}"#,
                "devices[0].presses[0].button", "is required"
            ),
        ])
    func pressesChecked(device: String, path: String, message: String) {
        #expect(throws: FleetError(path: path, message: message)) {
            _ = try SimulatedWorld(
                fleet: Fleet(json: Array(#"{"devices": [\#(device)]}"#.utf8)),
                start: Timestamp(secondsSince1970: 0))
        }
    }

    @Test("a fleet's presses survive its JSON and come in time order")
    func pressesRoundTrip() throws {
        let json = #"""
            {"devices": [{"model": "FitPro9614N", "mac": "004D3208D310", "presses": [
              {"at": "2026-11-20 14:00:00", "button": "takePicture"}, {"at": "2026-11-20 12:30:00", "button": "findPhone"}]}]}
            """#
        let fleet = try Fleet(json: Array(json.utf8))
        #expect(try Fleet(json: fleet.json) == fleet)
        let configuration = try SimulatedDeviceConfiguration(fleet.devices[0], path: "devices[0]")
        #expect(configuration.presses.map(\.event) == [.findPhone, .takePicture])
        #expect(configuration.presses.map(\.time.description) == ["2026-11-20 12:30:00", "2026-11-20 14:00:00"])
    }
}
