import HealthGATT
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// A sync by the desk (what `serve` and `sync` run) sets a device's clock that is off by more than 2 s, where the
/// device lets its Current Time be written or, that being read-only, has the vendor set-time command, once every
/// record it held is stored.
@Suite("Setting a device's clock after a sync")
struct ClockSettingTests {
    static let mac = MACAddress("004D3208D314")!

    /// A desk over a device of `model` (a generic blood pressure monitor unless said) holding three readings, its
    /// clock `offset` seconds ahead.
    static func desk(offset: Int, writable: Bool? = nil, model: DeviceModel = .bloodPressureMonitor) throws -> (
        desk: DeviceDesk, world: SimulatedWorld, store: VitalStore
    ) {
        let device = FleetDevice(
            model: model.name, mac: mac.description,
            records: RecordsScript(
                generate: GeneratedRecords(count: 3, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00")),
            clockOffset: offset, clockWritable: writable)
        let world = try SimulatedWorld(fleet: Fleet(devices: [device]), start: Engine.start)
        let store = try VitalStore()
        try store.saveDevice(StoredDevice(mac: mac, model: model, addedAt: Engine.start))
        let clock = world.clock
        let desk = DeviceDesk(
            store: store, central: world, leases: LocalLeases(), clock: ContinuousClock(), now: { clock.wallTime },
            logger: testLogger)
        return (desk, world, store)
    }

    /// The Current Time the device shows now, read as the hub reads it.
    static func shown(_ world: SimulatedWorld) async throws -> Timestamp {
        let connection = try await world.connect(to: mac)
        let bytes = try await connection.read(GATTCharacteristics.currentTime)
        await connection.disconnect()
        let time = try CurrentTime(bytes: bytes).dateTime
        return try #require(
            Timestamp(
                year: Int(time.year), month: Int(time.month), day: Int(time.day), hour: Int(time.hours),
                minute: Int(time.minutes), second: Int(time.seconds)))
    }

    @Test(
        "a push monitor's clock off by more than 2 s is set at the sync that finds its memory empty; the records it dated are corrected by what was read",
        arguments: [7_200, -3_600, 3, -3])
    func setsClock(offset: Int) async throws {
        let (desk, world, store) = try Self.desk(offset: offset)
        let truth = await world.storedReadings(of: Self.mac)
        // a push transfer ends when the device falls quiet: it may hold more its old clock dated, so not yet
        let first = try await desk.sync(Self.mac)
        #expect(first.stored == 3 && first.clockSetFrom == nil)
        let second = try await desk.sync(Self.mac)
        #expect(second.stored == 0 && second.clockSetFrom == Int64(offset))
        #expect(second.description.hasSuffix("; its clock was \(DeviceClock.describe(offset: Int64(offset))): set"))
        #expect(try store.readings.all(device: Self.mac).map(\.reading.measuredAt) == truth.map(\.measuredAt))
        #expect(try await Self.shown(world) == world.clock.wallTime)
        // right now: nothing to set, and a new measurement is dated right at the source
        #expect(try await desk.sync(Self.mac).clockSetFrom == nil)
        guard case .measured(let record) = try await desk.live(Self.mac, seconds: nil, onSample: { _ in }) else {
            Issue.record("no measurement")
            return
        }
        #expect(record.reading.annotations.deviceTime == nil)
    }

    @Test("a Record Access Control Point meter's clock is set after its first whole sync")
    func setsMeterClock() async throws {
        let device = FleetDevice(
            model: "BG5", mac: "004D3208D308",
            records: RecordsScript(
                generate: GeneratedRecords(count: 3, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00")),
            clockOffset: -172_800)
        let world = try SimulatedWorld(fleet: Fleet(devices: [device]), start: Engine.start)
        let store = try VitalStore()
        let mac = MACAddress(device.mac)!
        try store.saveDevice(StoredDevice(mac: mac, model: .bg5, addedAt: Engine.start))
        let clock = world.clock
        let desk = DeviceDesk(
            store: store, central: world, leases: LocalLeases(), clock: ContinuousClock(), now: { clock.wallTime },
            logger: testLogger)
        let truth = await world.storedReadings(of: mac)
        let sync = try await desk.sync(mac)
        #expect(sync.stored == 3 && sync.clockSetFrom == -172_800)
        #expect(try store.readings.all(device: mac).map(\.reading.measuredAt) == truth.map(\.measuredAt))
        // read again (the meter keeps what the hub has not deleted), they are the same readings, at the same times
        _ = try await desk.sync(mac)
        #expect(try store.readings.all(device: mac).map(\.reading.measuredAt) == truth.map(\.measuredAt))
    }

    @Test(
        "a clock within 2 s, or a Current Time a generic device (no vendor command) keeps read-only, is left as it is",
        arguments: [
            (2, nil as Bool?), (-2, nil), (0, nil), (7_200, false),
        ])
    func leavesClock(offset: Int, writable: Bool?) async throws {
        let (desk, world, store) = try Self.desk(offset: offset, writable: writable)
        let truth = await world.storedReadings(of: Self.mac)
        let sync = try await desk.sync(Self.mac)
        #expect(sync.stored == 3 && sync.clockSetFrom == nil && sync.description == "synced, 3 new records")
        #expect(try await desk.sync(Self.mac).clockSetFrom == nil)
        #expect(try await Self.shown(world).secondsSince1970 == world.clock.wallTime.secondsSince1970 + Int64(offset))
        // the readings are at their true times all the same
        #expect(try store.readings.all(device: Self.mac).map(\.reading.measuredAt) == truth.map(\.measuredAt))
    }

    @Test(
        "a vendor model whose Current Time is read-only has its clock set by the vendor set-time command; the next sync finds it right",
        arguments: [DeviceModel.bp5, .bg5])
    func setsClockByVendorCommand(model: DeviceModel) async throws {
        let (desk, world, store) = try Self.desk(offset: 7_200, writable: false, model: model)
        let truth = await world.storedReadings(of: Self.mac)
        let first = try await desk.sync(Self.mac)
        // a push device's clock waits for a sync that finds its memory empty; a meter's is set after any whole sync
        let pushes = DeviceCatalog.entry(for: model).family.traits.pushesStoredRecords
        let set = pushes ? try await desk.sync(Self.mac) : first
        #expect(first.stored == 3 && set.clockSetFrom == 7_200)
        #expect(set.description.hasSuffix("; its clock was \(DeviceClock.describe(offset: 7_200)): set"))
        #expect(try store.readings.all(device: Self.mac).map(\.reading.measuredAt) == truth.map(\.measuredAt))
        // the Current Time, still read-only, now reads the hub's time: the next sync reads an offset of 0
        #expect(try await Self.shown(world) == world.clock.wallTime)
        #expect(await world.deviceState(of: Self.mac)?.clockSet?.offset == 0)
        let next = try await desk.sync(Self.mac)
        #expect(next.clockSetFrom == nil && next.description == "synced, 0 new records")
        #expect(try store.readings.all(device: Self.mac).map(\.reading.measuredAt) == truth.map(\.measuredAt))
    }

    @Test("a monitor whose clock the vendor command set dates a new measurement right at the source")
    func vendorSetClockDatesMeasurements() async throws {
        let (desk, _, _) = try Self.desk(offset: -7_200, writable: false, model: .bp5)
        _ = try await desk.sync(Self.mac)
        #expect(try await desk.sync(Self.mac).clockSetFrom == -7_200)
        guard case .measured(let record) = try await desk.live(Self.mac, seconds: nil, onSample: { _ in }) else {
            Issue.record("no measurement")
            return
        }
        #expect(record.reading.annotations.deviceTime == nil)
    }

    @Test(
        "a vendor model's clock within 2 s gets no command: its clock is as the fleet set it",
        arguments: [(DeviceModel.bp5, 2), (.bg5, -2), (.bg5, 0)])
    func vendorLeavesClock(model: DeviceModel, offset: Int) async throws {
        let (desk, world, _) = try Self.desk(offset: offset, writable: false, model: model)
        _ = try await desk.sync(Self.mac)
        #expect(try await desk.sync(Self.mac).clockSetFrom == nil)
        // neither a Current Time write nor a set-time command reached it
        #expect(await world.deviceState(of: Self.mac)?.clockSet == nil)
        #expect(try await Self.shown(world).secondsSince1970 == world.clock.wallTime.secondsSince1970 + Int64(offset))
    }

    @Test("the set clock is remembered with the device's state; clockWritable is for a device with a Current Time")
    func remembered() async throws {
        let (desk, world, _) = try Self.desk(offset: 7_200)
        _ = try await desk.sync(Self.mac)
        _ = try await desk.sync(Self.mac)
        let state = try #require(await world.deviceState(of: Self.mac))
        #expect(state.clockSet?.offset == 0 && state.clockSet?.at == world.clock.wallTime)
        let reread = try DeviceState(json: state.json)
        #expect(reread == state)
        let sensor = #"{"devices": [{"model": "HRS", "mac": "004D3208D313", "clockWritable": false}]}"#
        #expect(
            throws: FleetError(
                path: "devices[0].clockWritable", message: "is for a device that serves a Current Time (0x2A2B)")
        ) { _ = try SimulatedWorld(fleet: Fleet(json: Array(sensor.utf8)), start: Engine.start) }
    }
}
