import Testing
import VitalCore
import VitalDevices
import VitalSimulation

/// The fleet's `failures.linkDrops` (a link that drops at random, as a real radio's does) and the world's `pace`.
@Suite struct LinkDropTests {
    static let mac = "004D3208D2F4"

    /// A world whose one device drops its link at `rate`.
    func dropping(_ model: String, _ family: DeviceFamily, count: Int, rate: Double) throws -> SimulatedWorld {
        try world(
            FleetDevice(
                model: model, mac: Self.mac, records: listedRecords(family, count: count), seed: 42,
                failures: FailureScript(linkDrops: rate)))
    }

    @Test("linkDrops and pace are read and written back")
    func roundTrip() throws {
        let text = """
            {"start": "2026-11-20 08:00:00", "pace": 120, "devices": [
              {"model": "BP5", "mac": "004D3208D2F4", "failures": {"linkDrops": 0.01, "disconnectAfter": 4}}]}
            """
        let fleet = try Fleet(json: Array(text.utf8))
        #expect(fleet.pace == 120)
        #expect(fleet.devices[0].failures?.linkDrops == 0.01)
        #expect(try Fleet(json: fleet.json) == fleet)
        _ = try SimulatedWorld(fleet: fleet, start: start)
    }

    @Test(
        "a rate out of 0–0.5 is refused naming its path",
        arguments: [-0.01, 0.51, 1, 2])
    func rateOutOfRange(rate: Double) {
        let fleet = Fleet(
            devices: [
                FleetDevice(model: "BG5", mac: "004D3208D308"),
                FleetDevice(model: "BP5", mac: Self.mac, failures: FailureScript(linkDrops: rate)),
            ])
        #expect(
            throws: FleetError(
                path: "devices[1].failures.linkDrops",
                message: "must be from 0 to 0.5 (a probability per notification the device sends)")
        ) { try SimulatedWorld(fleet: fleet, start: start) }
    }

    @Test("linkDrops that is not a number is refused naming its path")
    func rateNotANumber() {
        let text = #"{"devices": [{"model": "BP5", "mac": "004D3208D2F4", "failures": {"linkDrops": "often"}}]}"#
        let error = #expect(throws: FleetError.self) { try Fleet(json: Array(text.utf8)) }
        #expect(error?.path == "devices[0].failures.linkDrops")
    }

    @Test("a pace out of 1–1,000,000 is refused naming it", arguments: [0, 0.5, 1_000_001])
    func paceOutOfRange(pace: Double) {
        let fleet = Fleet(pace: pace, devices: [FleetDevice(model: "BP5", mac: Self.mac)])
        let message = "must be from 1 to 1000000 (seconds of the world's time a second)"
        #expect(throws: FleetError(path: "pace", message: message)) { try SimulatedWorld(fleet: fleet, start: start) }
    }

    /// Syncs a push device until it holds nothing, a new link after each drop; after each interrupted sync, what
    /// the device forgot is exactly what the sink committed. Returns the number of drops.
    func drainPushDevice(_ world: SimulatedWorld, into sink: MemorySink) async throws -> Int {
        let mac = MACAddress(Self.mac)!
        let total = await world.storedReadings(of: mac).count + sink.stored.count
        var drops = 0
        for _ in 0..<1_000 {
            let device = try await driver(world, Self.mac)
            do throws(DeviceError) {
                _ = try await device.sync(into: sink) { _ in }
                return drops
            } catch {
                #expect(error.code == .disconnected)
                drops += 1
                // the device forgot only what was committed: nothing acknowledged is missing from the sink
                #expect(await world.storedReadings(of: mac).count == total - sink.stored.count)
            }
        }
        Issue.record("the device never finished syncing")
        return drops
    }

    @Test("a push device's sync cut by drops stores what was committed, acknowledges nothing more, and ends complete")
    func pushDevice() async throws {
        let world = try dropping("BP5", .bloodPressure, count: 40, rate: 0.1)
        let expected = await world.storedReadings(of: MACAddress(Self.mac)!)
        let sink = MemorySink()
        let drops = try await drainPushDevice(world, into: sink)
        #expect(drops > 0)
        #expect(sink.readings == expected)
        #expect(await world.storedReadings(of: MACAddress(Self.mac)!).isEmpty)
    }

    @Test("a glucose meter's sync cut by a drop keeps its whole memory; the committed batches are stored")
    func racpDevice() async throws {
        let world = try dropping("BG5", .glucose, count: 30, rate: 0.1)
        let mac = MACAddress(Self.mac)!
        let expected = await world.storedReadings(of: mac)
        let sink = MemorySink()
        var drops = 0
        for _ in 0..<1_000 {
            let connection = try await world.connect(to: mac)
            var driver = GlucoseDriver(entry: DeviceCatalog.entry(for: .bg5), connection: connection)
            driver.batchSize = 4
            let last = sink.stored.compactMap(\.sequenceNumber).max()
            do throws(DeviceError) {
                _ = try await driver.sync(after: last, into: sink) { _ in }
                break
            } catch {
                #expect(error.code == .disconnected)
                drops += 1
                // nothing is deleted before the whole transfer's commit: the meter holds all, or (a drop of the
                // delete's answer) nothing, and then everything was committed
                let held = await world.storedReadings(of: mac)
                #expect(held == expected || (held.isEmpty && sink.readings == expected))
                #expect(sink.stored.count % 4 == 0 || sink.stored.count == expected.count)
            }
        }
        #expect(drops > 0)
        #expect(sink.readings == expected)
        #expect(await world.storedReadings(of: mac).isEmpty)
    }

    @Test("the drops come from the device's seed: the same fleet drops at the same records; rate 0 never drops")
    func deterministic() async throws {
        var counts: [[Int]] = []
        for _ in 0..<2 {
            let world = try dropping("BP5", .bloodPressure, count: 40, rate: 0.1)
            let sink = MemorySink()
            var committed: [Int] = []
            for _ in 0..<5 {
                _ = try? await driver(world, Self.mac).sync(into: sink) { _ in }
                committed.append(sink.stored.count)
            }
            counts.append(committed)
        }
        #expect(counts[0] == counts[1])
        #expect(counts[0].first! < 40)
        let steady = try dropping("BP5", .bloodPressure, count: 40, rate: 0)
        let sink = MemorySink()
        #expect(try await driver(steady, Self.mac).sync(into: sink) { _ in } == 40)
    }

    @Test("a state saved after drops continues the draws: the next world does not repeat the first one's drops")
    func savedDraws() async throws {
        let world = try dropping("BP5", .bloodPressure, count: 40, rate: 0.1)
        let mac = MACAddress(Self.mac)!
        _ = try? await driver(world, Self.mac).sync(into: MemorySink()) { _ in }
        let saved = try #require(await world.deviceState(of: mac))
        let fresh = try dropping("BP5", .bloodPressure, count: 40, rate: 0.1)
        try await fresh.connect(to: mac).disconnect()
        #expect(try #require(await fresh.deviceState(of: mac)).generator != saved.generator)
        let restored = try dropping("BP5", .bloodPressure, count: 40, rate: 0.1)
        try await restored.restore(saved, for: mac)
        #expect(await restored.deviceState(of: mac)?.generator == saved.generator)
    }

    @Test("with a pace, a link waits in real time for the world's time its events take")
    func pace() async throws {
        let mac = MACAddress("004D3208E002")!
        func beats(pace: Double?) async throws -> (world: Duration, real: Duration) {
            let world = try SimulatedWorld(
                fleet: Fleet(pace: pace, devices: [FleetDevice(model: "HRS", mac: mac.description)]), start: start)
            let connection = try await world.connect(to: mac)
            try await connection.subscribe(GATTCharacteristics.heartRateMeasurement)
            let before = world.clock.elapsedTime
            let real = try await ContinuousClock().measure {
                for _ in 0..<20 { _ = try await connection.nextEvent() }
            }
            return (world.clock.elapsedTime - before, real)
        }
        let unpaced = try await beats(pace: nil)
        // 20 beats of 0.7–1 s each
        #expect(unpaced.world >= .seconds(10))
        #expect(unpaced.real < unpaced.world / 100)
        let paced = try await beats(pace: 40)
        #expect(paced.real >= paced.world / 40 * 0.9)
    }
}
