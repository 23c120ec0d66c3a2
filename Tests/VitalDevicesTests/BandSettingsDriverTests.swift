import HealthGATT
import Testing
import VitalCore
import VitalDevices

private let g = GATTCharacteristics.self

/// The driver's getters against scripted bands: the answer is returned typed, what the band pushes meanwhile is
/// stored, and a band that does not answer as it must is a protocol violation (issue 52).
@Suite("Smartband driver: settings read back")
struct BandSettingsDriverTests {
    static let day = CalendarDate(year: 2026, month: 11, day: 20)!
    static let today = BandItem.todayTotals(BandTotals(steps: 8_421, calories: 312, distance: 6_120))

    func driver(_ script: [ScriptStep]) -> (SmartbandDriver, ScriptedConnection) {
        let connection = ScriptedConnection(script, offering: [g.bandControlPoint, g.bandData], mtu: 247)
        let entry = DeviceCatalog.entry(for: .fitPro9614N)
        return (SmartbandDriver(entry: entry, connection: connection) { time(12, 0).host }, connection)
    }

    /// The script of a getter `opCode`: the band pushes an item (stored and acknowledged), then answers with
    /// `answers` and the getter's result.
    static func script(_ opCode: UInt8, _ answers: [BandMessage]) -> [ScriptStep] {
        [
            .write(g.bandControlPoint, [opCode]), .notify(g.bandData, BandMessage.item(sequence: 1, today).encoded()),
            .notify(g.bandData, [0x10, 0x01, 0x00, 0x00, 0x00]), .write(g.bandControlPoint, [0x14, 0x01, 0, 0, 0]),
        ] + answers.map { .notify(g.bandData, $0.encoded()) } + [
            .notify(g.bandData, BandMessage.commandResult(opCode: opCode, success: true).encoded())
        ]
    }

    @Test("each getter returns the band's setting, and the item the band pushed meanwhile is stored")
    func getters() async throws {
        let options = try BandHardwareOptions(units: .imperial, backlightStart: 21)
        let alarm = try BandAlarm(id: 1, isOn: false, hour: 7, minute: 0, weekdays: .monday)
        let alarms: [BandAlarm?] = [nil, alarm, nil, nil, nil, nil, nil, nil]
        let reminder = try BandSedentaryReminder(isOn: true, startHour: 8, endHour: 12, weekdays: .everyDay)
        let wearer = try BandPersonalInfo(gender: .man, height: 180, weight: 80, age: 50, stepTarget: 12_000)
        let targets = try BandSportTargets([(.walk, 250)])
        let sink = RecordingSink()
        var (band, connection) = driver(Self.script(0x16, [.hardwareOptions(options)]))
        #expect(try await band.hardwareOptions(storingInto: sink) == options)
        #expect(connection.unplayed == 0)
        (band, connection) = driver(
            Self.script(0x17, alarms.enumerated().map { BandMessage.alarm(id: $0.offset, $0.element) }))
        #expect(try await band.alarms(storingInto: sink) == alarms)
        (band, _) = driver(Self.script(0x18, [.sedentaryReminder(reminder)]))
        #expect(try await band.sedentaryReminder(storingInto: sink) == reminder)
        (band, _) = driver(Self.script(0x19, [.personalInfo(wearer)]))
        #expect(try await band.personalInfo(storingInto: sink) == wearer)
        (band, _) = driver(Self.script(0x19, [.personalInfo(nil)]))
        #expect(try await band.personalInfo(storingInto: sink) == nil)
        (band, _) = driver(Self.script(0x1A, [.sportTargets(targets)]))
        #expect(try await band.sportTargets(storingInto: sink) == targets)
        (band, _) = driver(Self.script(0x1A, [.sportTargets(nil)]))
        #expect(try await band.sportTargets(storingInto: sink) == nil)
        #expect(sink.bandBatches.count == 7 && sink.bandBatches.allSatisfy { $0.count == 1 })
    }

    @Test(
        "a band that answers a getter with nothing, twice, or with alarms missing, repeated or out of order violates the protocol",
        arguments: [
            (0x16, [], "answered 0 times with its options"),
            (0x18, [.sedentaryReminder(.factory), .sedentaryReminder(.factory)], "answered 2 times"),
            (0x19, [.sportTargets(nil)], "answered 0 times with its wearer"),
            (0x17, (0..<7).map { BandMessage.alarm(id: $0, nil) }, "sent 7 alarms, not 8"),
            (0x17, (0..<9).map { BandMessage.alarm(id: min($0, 7), nil) }, "sent alarm 7 where 8 was due"),
            (0x17, [.alarm(id: 1, nil)], "sent alarm 1 where 0 was due"),
        ] as [(UInt8, [BandMessage], String)])
    func violations(opCode: UInt8, answers: [BandMessage], message: String) async throws {
        let (band, _) = driver(Self.script(opCode, answers))
        let sink = RecordingSink()
        let error = await #expect(throws: DeviceError.self) {
            switch opCode {
            case 0x16: _ = try await band.hardwareOptions(storingInto: sink)
            case 0x17: _ = try await band.alarms(storingInto: sink)
            case 0x18: _ = try await band.sedentaryReminder(storingInto: sink)
            default: _ = try await band.personalInfo(storingInto: sink)
            }
        }
        #expect(
            error?.code == .protocolViolation && error?.message.contains(message) == true,
            "\(String(describing: error))")
    }

    @Test("a change reads the setting, writes it back with only the part named changed, and returns it")
    func change() async throws {
        let options = try BandHardwareOptions(clock: .twelveHour, autoSleep: false, language: .simplifiedChinese)
        let changed = try BandHardwareOptions(
            units: .imperial, clock: .twelveHour, autoSleep: false, language: .simplifiedChinese)
        let (band, connection) = driver(
            Self.script(0x16, [.hardwareOptions(options)]) + [
                .write(g.bandControlPoint, BandCommand.setHardwareOptions(changed).encoded),
                .notify(g.bandData, BandMessage.commandResult(opCode: 0x10, success: true).encoded()),
            ])
        let written = try await band.changeHardwareOptions(.init(units: .imperial), storingInto: RecordingSink())
        #expect(written == changed && connection.unplayed == 0)
    }

    @Test("a background on a Fit Pro 9614N is refused before anything is read or written")
    func refusedFirst() async throws {
        let (band, connection) = driver([])
        await #expect(throws: BandSettingError("options.whiteBackground", "exists on the Smartee Training 9616N only"))
        {
            _ = try await band.changeHardwareOptions(.init(whiteBackground: true), storingInto: RecordingSink())
        }
        #expect(connection.operations.isEmpty)
    }
}
