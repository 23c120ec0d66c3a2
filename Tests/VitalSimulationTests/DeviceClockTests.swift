import Foundation
import HealthGATT
import Testing
import VitalCore
import VitalDevices

@testable import VitalSimulation

/// A fleet device's clock (`clockOffset`, `clockReset`): refused by name when it cannot be, shown by the device's
/// Current Time and in its records' time stamps.
@Suite("Simulated device clocks")
struct SimulatedClockTests {
    static let records = ",\"records\": {\"list\": [{\"measuredAt\": \"2026-11-19 07:00:00\", \"glucose\": 104}]}"

    @Test(
        "a bad clock is refused, naming the device and the key",
        arguments: [
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockOffset\": \"ahead\"}",
                "devices[0].clockOffset", "is a string, not a whole number"
            ),
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockOffset\": 1.5}",
                "devices[0].clockOffset", "is a number, not a whole number"
            ),
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockReset\": 1}",
                "devices[0].clockReset", "is a number, not true or false"
            ),
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockOffset\": 316224001}",
                "devices[0].clockOffset", "of BG5 004D3208D308 must be from -316224000 to 316224000 seconds"
            ),
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockOffset\": -316224001}",
                "devices[0].clockOffset", "of BG5 004D3208D308 must be from -316224000 to 316224000 seconds"
            ),
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockOffset\": 60, \"clockReset\": true\(records)}",
                "devices[0].clockReset", "of BG5 004D3208D308 cannot be set with clockOffset: choose one clock"
            ),
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockReset\": true}",
                "devices[0].clockReset",
                "of BG5 004D3208D308 needs records: the clock restarted at the device's first record"
            ),
            (
                "{\"model\": \"AM4\", \"mac\": \"004D3208D30A\", \"clockOffset\": 60}",
                "devices[0].clockOffset",
                "is for a device that dates its readings with its clock; AM4 004D3208D30A has none the simulator shifts"
            ),
            (
                "{\"model\": \"FitPro9614N\", \"mac\": \"004D3208D310\", \"clockReset\": true}",
                "devices[0].clockReset",
                "of FitPro9614N 004D3208D310 needs recordingSince: the band's clock restarted when it began recording"
            ),
            (
                "{\"model\": \"BPS\", \"mac\": \"004D3208D314\", \"clock\": false, \"clockReset\": true}",
                "devices[0].clockReset",
                "is for a device that dates its readings with its clock; BPS 004D3208D314 has none the simulator shifts"
            ),
            (
                "{\"model\": \"PO3\", \"mac\": \"004D3208D2FA\", \"currentTime\": false}",
                "devices[0].currentTime", "is for a device that dates its readings by a Bluetooth SIG profile"
            ),
            (
                "{\"model\": \"BPS\", \"mac\": \"004D3208D314\", \"clock\": false, \"currentTime\": false}",
                "devices[0].currentTime", "is for a device that dates its readings by a Bluetooth SIG profile"
            ),
            (
                "{\"model\": \"HRS\", \"mac\": \"004D3208D313\", \"currentTime\": true}",
                "devices[0].currentTime", "is for a device that dates its readings by a Bluetooth SIG profile"
            ),
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"currentTime\": \"no\"}",
                "devices[0].currentTime", "is a string, not true or false"
            ),
            (
                "{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"currentTime\": false, \"clockWritable\": false}",
                "devices[0].clockWritable", "is for a device that serves a Current Time (0x2A2B)"
            ),
        ])
    func refused(device: String, path: String, message: String) {
        #expect(throws: FleetError(path: path, message: message)) {
            _ = try SimulatedWorld(fleet: Fleet(json: Array("{\"devices\": [\(device)]}".utf8)), start: start)
        }
    }

    @Test("a band's clock offset is kept in the world's saved state, and a saved offset past a hundred years refused")
    func bandClockSaved() async throws {
        let fleet = Fleet(devices: [FleetDevice(model: "FitPro9614N", mac: "004D3208D310", clockOffset: 7_205)])
        let world = try SimulatedWorld(fleet: fleet, start: start)
        _ = await world.heldCount(of: MACAddress("004D3208D310")!)
        let saved = try #require(await world.state().devices["004D3208D310"])
        #expect(saved.band?.clockOffset == 7_205)
        #expect(try DeviceState(json: saved.json) == saved)
        let text = String(decoding: saved.json, as: UTF8.self)
        #expect(text.contains("\"clockOffset\":7205"), "\(text.prefix(300))")
        let far = text.replacingOccurrences(of: "\"clockOffset\":7205", with: "\"clockOffset\":3162240001")
        #expect(throws: FleetError.self) { try DeviceState(json: Array(far.utf8)) }
    }

    @Test("a band's clock set re-dates what it holds and has not sent by the new clock; what it sent keeps the old")
    func bandClockSetRedates() {
        let life = BandLife(seed: 7)
        let start = Timestamp(parsing: "2026-11-20 00:00:00")!
        var band = BandState(recordedThrough: start, clockOffset: 7_200)
        let noon = Timestamp(parsing: "2026-11-20 12:00:00")!
        band.record(until: noon, life: life)
        var truth: [BandItem] = []
        life.items(after: start, through: noon) { truth.append($0) }
        #expect(band.pending.map(\.item) == truth.map { $0.movedBack(byMinutes: -120) })
        // items 1 to 3 were sent on the link that sets the clock: they keep the old clock's dates
        band.setClock(to: noon, at: noon, life: life, sent: 3)
        #expect(band.clockOffset == 0)
        #expect(band.pending.prefix(3).map(\.item) == truth.prefix(3).map { $0.movedBack(byMinutes: -120) })
        #expect(band.pending.dropFirst(3).map(\.item) == Array(truth.dropFirst(3)))
    }

    @Test("the clock keys are read and written back")
    func roundTrip() throws {
        let fleet = Fleet(devices: [
            FleetDevice(model: "BG5", mac: "004D3208D308", clockOffset: -172_800),
            FleetDevice(model: "BP5", mac: "004D3208D2F4", clockReset: true),
            FleetDevice(model: "GLS", mac: "004D3208D312", clockOffset: 3_600, currentTime: false),
        ])
        #expect(try Fleet(json: fleet.json) == fleet)
    }

    @Test("the device's Current Time and its records' time stamps are its clock's, the record's own time the true one")
    func shownTimes() async throws {
        let json =
            "{\"devices\": [{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockOffset\": 7200\(Self.records)}]}"
        let world = try SimulatedWorld(fleet: Fleet(json: Array(json.utf8)), start: start)
        let mac = MACAddress("004D3208D308")!
        let connection = try await world.connect(to: mac)
        let current = try CurrentTime(bytes: try await connection.read(GATTCharacteristics.currentTime))
        // 2026-11-20 08:00:00 (a Friday) two hours ahead
        #expect(current.dateTime == DateTime(year: 2026, month: 11, day: 20, hours: 10, minutes: 0, seconds: 0))
        #expect(current.dayOfWeek == 5)
        let truth = await world.storedReadings(of: mac)
        #expect(truth.map(\.measuredAt.description) == ["2026-11-19 07:00:00"])
        let state = try #require(await world.deviceState(of: mac))
        let runtime = DeviceRuntime(configuration: world.configurations[0], state: state)
        let sent = try GlucoseMeasurement(bytes: runtime.encode(state.records.first!))
        #expect(sent.baseTime == DateTime(year: 2026, month: 11, day: 19, hours: 9, minutes: 0, seconds: 0))
    }

    @Test("a reset clock shows 2000-01-01 00:00:00 at the first record, and runs on from there")
    func resetClock() async throws {
        let json =
            "{\"devices\": [{\"model\": \"BG5\", \"mac\": \"004D3208D308\", \"clockReset\": true\(Self.records)}]}"
        let world = try SimulatedWorld(fleet: Fleet(json: Array(json.utf8)), start: start)
        #expect(world.configurations[0].clockOffset == 946_684_800 - 1_795_071_600)
        let connection = try await world.connect(to: MACAddress("004D3208D308")!)
        let current = try CurrentTime(bytes: try await connection.read(GATTCharacteristics.currentTime))
        // the world starts 25 h after the first record
        #expect(current.dateTime == DateTime(year: 2000, month: 1, day: 2, hours: 1, minutes: 0, seconds: 0))
    }

    @Test("the PO3 serves no Current Time: its protocol only sets its clock")
    func noClockRead() async throws {
        let world = try SimulatedWorld(
            fleet: Fleet(devices: [FleetDevice(model: "PO3", mac: "004D3208D2FA", clockOffset: 60)]), start: start)
        let connection = try await world.connect(to: MACAddress("004D3208D2FA")!)
        #expect(await !connection.offers(GATTCharacteristics.currentTime))
        await #expect(throws: DeviceError.self) { try await connection.read(GATTCharacteristics.currentTime) }
    }

    @Test(
        "the vendor set-time command sets the clock as a Current Time write does, read-only or not: the next read shows it"
    )
    func vendorSetTime() async throws {
        let g = GATTCharacteristics.self
        let mac = MACAddress("004D3208D308")!
        let world = try world(
            FleetDevice(model: "BG5", mac: mac.description, clockOffset: 7_200, clockWritable: false))
        let connection = try await world.connect(to: mac)
        let now = world.clock.wallTime
        await #expect(throws: DeviceError.self) {
            try await connection.write(g.currentTime, CurrentTime(now).encoded())
        }
        try await connection.subscribe(g.vendorStatus)
        let setTime = VendorOpCode.setTime.rawValue
        // a Date Time that is no date is refused, changing nothing
        let unknown = DateTime(year: 0, month: 0, day: 0, hours: 0, minutes: 0, seconds: 0)
        try await connection.write(g.vendorControlPoint, VendorCommand.setTime(unknown).encoded)
        #expect(
            try await connection.nextEvent()
                == .notification(g.vendorStatus, VendorEvent.commandResult(opCode: setTime, success: false).encoded))
        #expect(await world.deviceState(of: mac)?.clockSet == nil)
        try await connection.write(g.vendorControlPoint, VendorCommand.setTime(DateTime(now)).encoded)
        #expect(
            try await connection.nextEvent()
                == .notification(g.vendorStatus, VendorEvent.commandResult(opCode: setTime, success: true).encoded))
        let current = try CurrentTime(bytes: try await connection.read(g.currentTime))
        #expect(current.dateTime == DateTime(world.clock.wallTime))
        #expect(await world.deviceState(of: mac)?.clockSet?.offset == 0)
    }

    @Test("the PO3's clock, set by the vendor command as each session begins, dates what it measures from then")
    func po3ClockSet() async throws {
        let mac = MACAddress("004D3208D2FA")!
        let world = try world(FleetDevice(model: "PO3", mac: mac.description, clockOffset: 3_600))
        let driver = try await driver(world, mac.description)
        try await driver.prepare(for: DeviceSession(caller: "com.example.app", time: world.clock.wallTime))
        #expect(await world.deviceState(of: mac)?.clockSet?.offset == 0)
        let record = try await driver.measure(MeasureOptions(), into: MemorySink()) { _ in }
        #expect(record.reading.measuredAt == world.clock.wallTime && record.reading.annotations.deviceTime == nil)
    }
}
