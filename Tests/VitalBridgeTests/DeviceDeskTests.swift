import Foundation
import LayeredProtocol
import Locking
import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// The desk over a simulated world of the built-in fleet's `models`, each stored as a device of the hub.
struct Desk {
    let world: SimulatedWorld
    let store: VitalStore
    let desk: DeviceDesk

    init(_ models: DeviceModel...) throws {
        let devices = Fleet.default.devices.filter { device in models.contains { $0.name == device.model } }
        world = try SimulatedWorld(fleet: Fleet(user: UserScript(), devices: devices), start: Engine.start)
        store = try VitalStore()
        for device in devices {
            try store.saveDevice(
                StoredDevice(
                    mac: MACAddress(device.mac)!, model: DeviceModel(modelString: device.model)!,
                    addedAt: Engine.start))
        }
        let clock = world.clock
        desk = DeviceDesk(
            store: store, central: world, leases: LocalLeases(), clock: ContinuousClock(),
            now: { clock.wallTime }, logger: testLogger)
    }

    static func mac(_ model: DeviceModel) -> MACAddress {
        MACAddress(Fleet.default.devices.first { $0.model == model.name }!.mac)!
    }
}

@Suite("DeviceDesk")
struct DeviceDeskTests {
    @Test("info reads the model, serial, firmware and battery of a known device")
    func info() async throws {
        let desk = try Desk(.po3)
        let report = try await desk.desk.info(Desk.mac(.po3))
        #expect(report.model == .po3)
        #expect(report.info == DeviceInfo(serialNumber: "PO3-D307", firmwareRevision: "1.0.0", batteryLevel: 90))
    }

    @Test("every operation refuses a MAC the hub does not know, before connecting")
    func unknown() async throws {
        let desk = try Desk(.po3)
        let other = MACAddress("004D3208D2F4")!
        await #expect(
            throws: DeviceDeskError(
                .unknownDevice,
                "\(other) is not a device of this hub: add it first: vitalbridge add --qr MODEL:\(other) (or a layered request, cmd=1)"
            )
        ) {
            try await desk.desk.info(other)
        }
        do {
            _ = try await desk.desk.reset(other)
            Issue.record("reset an unknown device")
        } catch {
            #expect(error.code == .unknownDevice)
        }
    }

    @Test("reset stores the PO3's history before the reset erases it")
    func resetPO3() async throws {
        let desk = try Desk(.po3)
        #expect(try await desk.desk.reset(Desk.mac(.po3)) == 5)
        #expect(try desk.store.readings.all(device: Desk.mac(.po3)).count == 5)
        #expect(try await desk.desk.reset(Desk.mac(.po3)) == 0)
    }

    @Test("a device without a factory reset, or without live samples, is refused by name")
    func unsupported() async throws {
        let desk = try Desk(.bg5)
        do {
            _ = try await desk.desk.reset(Desk.mac(.bg5))
            Issue.record("reset a BG5")
        } catch {
            #expect(error.code == .unsupported && error.message.contains("no factory reset"))
        }
        do {
            _ = try await desk.desk.live(Desk.mac(.bg5), seconds: nil) { _ in }
            Issue.record("streamed a BG5")
        } catch {
            #expect(error.code == .unsupported && error.message.contains("no live samples"))
        }
    }

    @Test("live streams the PO3's pulse wave and values, then stores its reading")
    func livePO3() async throws {
        let desk = try Desk(.po3)
        let samples = Locked<[LiveSample]>([])
        let ending = try await desk.desk.live(Desk.mac(.po3), seconds: 60) { sample in
            samples.withLock { $0.append(sample) }
        }
        let oximetry = LiveSample.oximetry(spO2: 97, pulseRate: 70, perfusionIndex: nil)
        #expect(
            samples.withLock { $0 }
                == [20, 60, 90, 40].flatMap { [LiveSample.pulseWave($0), oximetry] })
        guard case .measured(let record) = ending else {
            Issue.record("no reading: \(ending)")
            return
        }
        #expect(try desk.store.readings.all(device: Desk.mac(.po3)).map(\.reading) == [record.reading])
    }

    @Test("live on a heart-rate sensor with no seconds streams until the task is cancelled, and stores nothing")
    func liveCancelled() async throws {
        let desk = try Desk(.heartRateSensor)
        // The simulated sensor beats on a virtual clock, as fast as the driver reads: the stream is cancelled from
        // its own sample callback, on the streaming task, after 100 beats. (A consumer task that cancels it would
        // depend on getting a thread of the pool the stream never yields while other tests block the rest.)
        let beats = Locked<[LiveSample]>([])
        let streaming = Task {
            try await desk.desk.live(Desk.mac(.heartRateSensor), seconds: nil) { sample in
                let count = beats.withLock { heard in
                    heard.append(sample)
                    return heard.count
                }
                if count == 100 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        #expect(try await streaming.value == .stopped)
        let heard = beats.withLock { $0 }
        #expect(heard.count == 100)
        for sample in heard {
            guard case .heartRate(let rate?, let intervals) = sample, rate > 0, !intervals.isEmpty else {
                Issue.record("not a beat: \(sample)")
                break
            }
        }
        #expect(try desk.store.readings.all(device: Desk.mac(.heartRateSensor)).isEmpty)
    }

    @Test("band operations go through the desk: a device that is not a band is refused by name, before connecting")
    func notABand() async throws {
        let desk = try Desk(.bg5)
        await #expect(throws: DeviceDeskError(.unsupported, "\(Desk.mac(.bg5)) is a BG5, not a smartband")) {
            try await desk.desk.withBand(Desk.mac(.bg5), doing: "test") { _, _ in 0 }
        }
        #expect(await desk.world.storedReadings(of: Desk.mac(.bg5)).count == 5)
    }

    @Test("today asks the band for today's totals, stores what it pushed, and returns today as stored")
    func bandToday() async throws {
        let desk = try Desk(.fitPro9614N)
        let mac = Desk.mac(.fitPro9614N)
        let today = try #require(try await desk.desk.bandToday(mac))
        guard case .band(let day) = today else {
            Issue.record("not a day: \(today)")
            return
        }
        #expect(day.date == desk.world.clock.wallTime.day)
        #expect(try desk.store.readings.all(device: mac).last?.reading == today)
    }

    @Test("a band's rule broken inside an operation is a setting refusal naming the field; nothing else is lost")
    func bandSetting() async throws {
        let desk = try Desk(.fitPro9614N)
        let mac = Desk.mac(.fitPro9614N)
        let day = desk.world.clock.wallTime.day
        for minute in 0..<4 {
            let schedule = try BandSchedule(date: day, hour: 10, minute: minute, title: "x")
            try await desk.desk.withBand(mac, doing: "schedule") { band, sink in
                try await band.writeChecked(schedule, storingInto: sink)
            }
        }
        let stored = try desk.store.readings.all(device: mac).count
        let fifth = try BandSchedule(date: day, hour: 11, minute: 0, title: "x")
        do {
            try await desk.desk.withBand(mac, doing: "schedule") { band, sink in
                try await band.writeChecked(fifth, storingInto: sink)
            }
            Issue.record("a fifth schedule was written")
        } catch {
            #expect(error.code == .setting && error.message.hasPrefix("schedule.date "), "\(error)")
        }
        #expect(try desk.store.readings.all(device: mac).count >= stored)
    }
}
