import LayeredProtocol
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore

/// Devices whose clocks are off: the engine reads each device's clock before its records and stores every
/// reading at its true time (within 2 s), keeping the time the device gave.
@Suite("Device clocks, through the engine")
struct DeviceClockTests {
    /// Offsets from 48 h behind to 48 h ahead.
    static let clockOffsets = [-172_800, -3600, -1, 0, 1, 7200, 172_800]

    /// A device of `model` at `mac` holding three readings taken on 2026-11-19 (true times), its clock `offset`
    /// seconds ahead.
    static func device(_ model: String, _ mac: String, offset: Int? = nil, reset: Bool? = nil) -> FleetDevice {
        FleetDevice(
            model: model, mac: mac,
            records: RecordsScript(
                generate: GeneratedRecords(count: 3, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00")),
            clockOffset: offset, clockReset: reset)
    }

    /// The devices a clock test syncs: a push monitor, a Record Access Control Point meter, a generic monitor.
    static let synced: [(model: String, deviceModel: DeviceModel, mac: String)] = [
        ("BP5", .bp5, "004D3208D2F4"), ("BG5", .bg5, "004D3208D308"), ("BPS", .bloodPressureMonitor, "004D3208D314"),
    ]

    /// Syncs `device` and returns what the device held (true times) and what the store has, both oldest first.
    static func sync(_ device: FleetDevice, _ model: DeviceModel) async throws -> (
        truth: [Reading], stored: [Reading]
    ) {
        let engine = try Engine([device])
        let mac = MACAddress(device.mac)!
        let truth = await engine.world.storedReadings(of: mac)
        let callback = try await engine.callback(request(.sync, model, device.mac))
        #expect(callback.status == ActionStatus(action: .sync, ran: [.success]))
        let stored = try engine.store.readings.all(device: mac).map(\.reading)
        return (truth, stored.sorted { $0.measuredAt < $1.measuredAt })
    }

    @Test(
        "a clock off by −48 h to +48 h: every stored time within 2 s of the true one, the device's time kept",
        arguments: clockOffsets)
    func offsets(offset: Int) async throws {
        for (model, deviceModel, mac) in Self.synced {
            let (truth, stored) = try await Self.sync(Self.device(model, mac, offset: offset), deviceModel)
            try #require(stored.count == truth.count && truth.count == 3, "\(model)")
            for (reading, true_) in zip(stored, truth) {
                #expect(abs(reading.measuredAt.secondsSince1970 - true_.measuredAt.secondsSince1970) <= 2, "\(model)")
                let reported = Timestamp(secondsSince1970: true_.measuredAt.secondsSince1970 + Int64(offset))
                #expect(reading.annotations.deviceTime == (offset == 0 ? nil : reported), "\(model) \(offset)")
                #expect(!reading.annotations.status.contains(.timeUnverified))
                #expect(
                    reading.retimed(to: true_.measuredAt)
                        == {
                            var expected = true_
                            expected.annotations.deviceTime = reading.annotations.deviceTime
                            return expected
                        }(), "\(model): only the time is the device's")
            }
        }
    }

    @Test("a clock that restarted at 2000-01-01 at the first record: the records land at their true times")
    func resetClock() async throws {
        for (model, deviceModel, mac) in Self.synced {
            let (truth, stored) = try await Self.sync(Self.device(model, mac, reset: true), deviceModel)
            try #require(stored.count == truth.count && truth.count == 3, "\(model)")
            let first = truth[0].measuredAt.secondsSince1970
            for (reading, true_) in zip(stored, truth) {
                #expect(abs(reading.measuredAt.secondsSince1970 - true_.measuredAt.secondsSince1970) <= 2, "\(model)")
                let shown = 946_684_800 + true_.measuredAt.secondsSince1970 - first
                #expect(reading.annotations.deviceTime == Timestamp(secondsSince1970: shown), "\(model)")
            }
            #expect(stored[0].annotations.deviceTime?.description == "2000-01-01 00:00:00")
        }
    }

    @Test("a generic monitor 48 h ahead: its new reading is recognized as new once corrected, and stored so")
    func newReadingOfAClockAhead() async throws {
        let mac = "004D3208D314"
        let engine = try Engine([Self.device("BPS", mac, offset: 172_800)])
        let callback = try await engine.callback(request(.measure, .bloodPressureMonitor, mac))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.success]))
        let now = engine.world.clock.wallTime.secondsSince1970
        let stored = try engine.store.readings.all(device: MACAddress(mac)!).map(\.reading)
        let newest = try #require(stored.max { $0.measuredAt < $1.measuredAt })
        #expect(abs(newest.measuredAt.secondsSince1970 - now) <= 120)
        #expect(newest.annotations.deviceTime?.secondsSince1970 == newest.measuredAt.secondsSince1970 + 172_800)
        guard case .list(let objects)? = callback.result else {
            Issue.record("no readings in \(callback)")
            return
        }
        // the callback's measured_at is the corrected time
        #expect(objects.first?.string(.measuredAt) == newest.measuredAt.description)
    }

    @Test(
        "a PO3, whose clock its protocol cannot read: its readings keep the times it sent, marked timeUnverified",
        arguments: [nil, 3600])
    func unreadableClock(offset: Int?) async throws {
        let (truth, stored) = try await Self.sync(Self.device("PO3", "004D3208D2FA", offset: offset), .po3)
        try #require(stored.count == truth.count && truth.count == 3)
        for (reading, true_) in zip(stored, truth) {
            #expect(reading.annotations.status.contains(.timeUnverified))
            #expect(reading.annotations.deviceTime == nil)
            #expect(reading.measuredAt.secondsSince1970 == true_.measuredAt.secondsSince1970 + Int64(offset ?? 0))
        }
    }

    @Test("a PO3's measurement after the hub set its clock is dated right: not marked; the history before it is")
    func po3Measurement() async throws {
        let mac = "004D3208D2FA"
        let engine = try Engine([Self.device("PO3", mac, offset: 3600)])
        let callback = try await engine.callback(request(.syncMeasure, .po3, mac))
        #expect(callback.status == ActionStatus(action: .syncMeasure, ran: [.success, .success]))
        let stored = try engine.store.readings.all(device: MACAddress(mac)!).map(\.reading)
        let history = stored.filter { $0.annotations.status.contains(.timeUnverified) }
        let live = stored.filter { !$0.annotations.status.contains(.timeUnverified) }
        #expect(history.count == 3 && live.count == 1)
        #expect(live.first?.annotations.deviceTime == nil)
    }

    @Test("a generic monitor without a clock: its reading is the hub's time, neither corrected nor marked")
    func hubDated() async throws {
        let mac = "004D3208D314"
        let engine = try Engine([FleetDevice(model: "BPS", mac: mac, clock: false)])
        let callback = try await engine.callback(request(.measure, .bloodPressureMonitor, mac))
        #expect(callback.status == ActionStatus(action: .measure, ran: [.success]))
        let stored = try engine.store.readings.all(device: MACAddress(mac)!)
        #expect(stored.count == 1 && stored[0].reading.annotations == .none)
    }

    static let syncSucceeded = ActionStatus(action: .sync, ran: [.success])

    /// A BG5 holding two glucose readings an hour apart, taken `shift` seconds earlier than the first test's, its
    /// clock `offset` seconds ahead; with `currentTime: false`, one whose clock the hub cannot read.
    static func meter(shift: Int64, offset: Int, currentTime: Bool? = nil) -> FleetDevice {
        let times = [1_795_071_600 - shift, 1_795_075_200 - shift].map { Timestamp(secondsSince1970: $0) }
        return FleetDevice(
            model: "BG5", mac: "004D3208D308",
            records: RecordsScript(
                list: zip(times, [104, 131]).map { time, value in
                    SimulatedReading(measuredAt: time.description, ["glucose": .number(Double(value))])
                }),
            clockOffset: offset, currentTime: currentTime)
    }

    @Test(
        "records sent again in a later session, whose clock offset then reads a second apart, are stored once (an offset of 0: nothing corrected in that session)",
        arguments: [(-7200, -7199), (0, 1), (0, -1), (1, 0)])
    func resentASecondApart(offsets: (first: Int, again: Int)) async throws {
        let store = try VitalStore()
        let mac = MACAddress("004D3208D308")!
        // the first session reads the first offset; the meter keeps its records (their delete was lost)
        let first = try Engine([Self.meter(shift: 0, offset: offsets.first)], store: store)
        #expect(try await first.callback(request(.sync, .bg5, mac.description)).status == Self.syncSucceeded)
        let stored = try store.readings.all(device: mac)
        try #require(stored.count == 2)
        // the second reads the other: the same records, with the same time stamps, are corrected a second apart
        let shift = Int64(offsets.again - offsets.first)
        let second = try Engine([Self.meter(shift: shift, offset: offsets.again)], store: store)
        #expect(await second.world.storedReadings(of: mac).count == 2)
        #expect(try await second.callback(request(.sync, .bg5, mac.description)).status == Self.syncSucceeded)
        #expect(try store.readings.all(device: mac) == stored)
        // a record of another time stamp is another reading
        let third = try Engine([Self.meter(shift: 3, offset: offsets.first)], store: store)
        #expect(try await third.callback(request(.sync, .bg5, mac.description)).status == Self.syncSucceeded)
        #expect(try store.readings.all(device: mac).count == 4)
    }

    @Test(
        "records stored as the device dated them, its clock unread, are the same readings when a later session reads the clock and corrects them; the other way round they are stored again, never taken for others",
        arguments: [(true, 3_600), (true, -90), (false, 3_600), (false, -90)])
    func unreadThenRead(unreadFirst: Bool, offset: Int) async throws {
        let store = try VitalStore()
        let mac = MACAddress("004D3208D308")!
        // a session that cannot read the clock (here the meter serves no Current Time; in a home, three reads that
        // each took too long) stores the times the meter sent, marked; one that reads it stores the true times
        let unread = Self.meter(shift: 0, offset: offset, currentTime: false)
        let read = Self.meter(shift: 0, offset: offset)
        let first = try Engine([unreadFirst ? unread : read], store: store)
        #expect(try await first.callback(request(.sync, .bg5, mac.description)).status == Self.syncSucceeded)
        let stored = try store.readings.all(device: mac)
        try #require(stored.count == 2)
        #expect(stored.allSatisfy { $0.reading.annotations.status.contains(.timeUnverified) == unreadFirst })
        #expect(stored.allSatisfy { ($0.reading.annotations.deviceTime == nil) == unreadFirst })
        // the meter kept its records (their delete was lost): the other kind of session sends them again
        let second = try Engine([unreadFirst ? read : unread], store: store)
        #expect(try await second.callback(request(.sync, .bg5, mac.description)).status == Self.syncSucceeded)
        let after = try store.readings.all(device: mac)
        if unreadFirst {
            #expect(after == stored)
        } else {
            // a stored corrected reading is not looked for by its device time alone (ResentReadingTests.newAtOldStamp)
            #expect(after.count == 4 && stored.allSatisfy(after.contains))
        }
    }
}
