import Testing
import VitalCore
import VitalDevices
import VitalSimulation

/// A fleet device's `presence`: the daily windows it is in range, checked by name, honoured by scan and connect.
@Suite("Simulated presence: when a device is in range")
struct PresenceTests {
    static let start = Timestamp(parsing: "2026-11-20 06:59:59")!

    @Test(
        "a bad window is refused, naming the device's key",
        arguments: [
            (#"[{"at": "7:00", "seconds": 60}]"#, "devices[0].presence[0].at", "is not HH:mm or HH:mm:ss"),
            (#"[{"at": "24:00", "seconds": 60}]"#, "devices[0].presence[0].at", "is not HH:mm or HH:mm:ss"),
            (#"[{"at": "07:60", "seconds": 60}]"#, "devices[0].presence[0].at", "is not HH:mm or HH:mm:ss"),
            (#"[{"at": "07:00:60", "seconds": 60}]"#, "devices[0].presence[0].at", "is not HH:mm or HH:mm:ss"),
            (#"[{"at": "07:00", "seconds": 0}]"#, "devices[0].presence[0].seconds", "must be from 1 to 86400"),
            (#"[{"at": "07:00", "seconds": 86401}]"#, "devices[0].presence[0].seconds", "must be from 1 to 86400"),
            (#"[]"#, "devices[0].presence", "must have a window"),
        ])
    func refused(presence: String, path: String, message: String) {
        let json = #"{"devices": [{"model": "HS2", "mac": "004D3208D30C", "presence": \#(presence)}]}"#
        #expect(throws: FleetError(path: path, message: message)) {
            _ = try SimulatedWorld(fleet: Fleet(json: Array(json.utf8)), start: Self.start)
        }
    }

    @Test("presence is not given with inRange false, and a window needs its seconds")
    func refusedWith() {
        let both =
            #"{"devices": [{"model": "HS2", "mac": "004D3208D30C", "inRange": false, "presence": [{"at": "07:00", "seconds": 60}]}]}"#
        #expect(
            throws: FleetError(path: "devices[0].presence", message: "cannot be given with inRange false: choose one")
        ) { _ = try SimulatedWorld(fleet: Fleet(json: Array(both.utf8)), start: Self.start) }
        let missing = #"{"devices": [{"model": "HS2", "mac": "004D3208D30C", "presence": [{"at": "07:00"}]}]}"#
        #expect(throws: FleetError.self) { _ = try Fleet(json: Array(missing.utf8)) }
    }

    @Test("the windows are read and written back")
    func roundTrip() throws {
        let fleet = Fleet(devices: [
            FleetDevice(
                model: "HS2", mac: "004D3208D30C",
                presence: [PresenceScript(at: "07:00", seconds: 60), PresenceScript(at: "19:30:15", seconds: 900)])
        ])
        #expect(try Fleet(json: fleet.json) == fleet)
    }

    /// Whether a scan of the world hears `mac` now, and whether a connection reaches it.
    static func seen(_ world: SimulatedWorld, _ mac: MACAddress) async -> (heard: Bool, reached: Bool) {
        var heard = false
        for await advertisement in world.scan(for: []) where advertisement.mac == mac { heard = true }
        do {
            let connection = try await world.connect(to: mac)
            await connection.disconnect()
            return (heard, true)
        } catch {
            #expect(error.code == .notFound, "\(error)")
            return (heard, false)
        }
    }

    @Test("a scale seen a minute each morning: heard and reached from 07:00:00 to 07:00:59, at no other time")
    func morningMinute() async throws {
        let mac = MACAddress("004D3208D30C")!
        let fleet = Fleet(devices: [
            FleetDevice(model: "HS2", mac: mac.description, presence: [PresenceScript(at: "07:00", seconds: 60)])
        ])
        let world = try SimulatedWorld(fleet: fleet, start: Self.start)
        // 06:59:59, 07:00:00, 07:00:59, 07:01:00, then the next morning at 07:00:30
        for (step, expected) in [(0, false), (1, true), (59, true), (1, false), (86_370, true)] {
            world.clock.advance(by: .seconds(step))
            let seen = await Self.seen(world, mac)
            #expect(seen.heard == expected && seen.reached == expected, "at \(world.clock.wallTime)")
        }
    }

    @Test("a window open past midnight goes on into the next day")
    func pastMidnight() async throws {
        let mac = MACAddress("004D3208D30C")!
        let fleet = Fleet(devices: [
            FleetDevice(model: "HS2", mac: mac.description, presence: [PresenceScript(at: "23:59:30", seconds: 60)])
        ])
        let world = try SimulatedWorld(fleet: fleet, start: Timestamp(parsing: "2026-11-20 23:59:29")!)
        for (step, expected) in [(0, false), (1, true), (30, true), (29, true), (1, false)] {
            world.clock.advance(by: .seconds(step))
            let seen = await Self.seen(world, mac)
            #expect(seen.heard == expected && seen.reached == expected, "at \(world.clock.wallTime)")
        }
    }

    @Test("a monitor that connects by itself after a measurement: not heard advertising, connected in its window only")
    func connectsByItself() async throws {
        let mac = MACAddress("004D3208D314")!
        let fleet = Fleet(devices: [
            FleetDevice(
                model: "BPS", mac: mac.description,
                presence: [PresenceScript(at: "07:00", seconds: 60, connects: true)])
        ])
        #expect(try Fleet(json: fleet.json) == fleet)
        let world = try SimulatedWorld(fleet: fleet, start: Self.start)
        // 06:59:59, 07:00:00, 07:00:59, 07:01:00
        for (step, inWindow) in [(0, false), (1, true), (59, true), (1, false)] {
            world.clock.advance(by: .seconds(step))
            let seen = await Self.seen(world, mac)
            #expect(!seen.heard && seen.reached == inWindow, "at \(world.clock.wallTime)")
            #expect(await world.connectedPeripherals() == (inWindow ? [mac] : []), "at \(world.clock.wallTime)")
        }
        let configuration = try #require(world.configurations.first)
        #expect(
            configuration.connectsByItself(at: Timestamp(parsing: "2026-11-21 07:00:30")!)
                == Timestamp(parsing: "2026-11-21 07:00:00")!)
        let wrong =
            #"{"devices": [{"model": "BPS", "mac": "004D3208D314", "presence": [{"at": "07:00", "seconds": 60, "connects": 1}]}]}"#
        #expect(throws: FleetError.self) { _ = try Fleet(json: Array(wrong.utf8)) }
    }
}
