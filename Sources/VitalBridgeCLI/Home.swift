import ArgumentParser
import Foundation
import LayeredProtocol
import VitalBridge
import VitalSimulation
import VitalStore

/// `--home`, shared by every command that uses the hub's files.
struct HomeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The hub's folder: store, whitelist, fleet and world state.",
            discussion: "Default: $VITALBRIDGE_HOME, else $XDG_DATA_HOME/vitalbridge, else ~/.local/share/vitalbridge.")
    )
    var home: String?

    /// The folder, resolved.
    var directory: URL {
        let environment = ProcessInfo.processInfo.environment
        if let home { return URL(fileURLWithPath: home) }
        if let path = environment["VITALBRIDGE_HOME"], !path.isEmpty { return URL(fileURLWithPath: path) }
        if let path = environment["XDG_DATA_HOME"], !path.isEmpty {
            return URL(fileURLWithPath: path).appendingPathComponent("vitalbridge")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share/vitalbridge")
    }
}

/// The hub's files in its home folder; missing ones are created from the embedded defaults.
struct Home {
    let directory: URL

    var storePath: URL { directory.appendingPathComponent("vitalbridge.sqlite") }
    var whitelistPath: URL { directory.appendingPathComponent("AppWhiteList.plist") }
    var fleetPath: URL { directory.appendingPathComponent("fleet.json") }
    var worldDirectory: URL { directory.appendingPathComponent("world") }
    var locksDirectory: URL { directory.appendingPathComponent("locks") }

    /// Opens `directory`, creating it and its default files as needed.
    init(_ directory: URL) throws(HomeError) {
        self.directory = directory
        let files = FileManager.default
        do {
            try files.createDirectory(at: worldDirectory, withIntermediateDirectories: true)
            try files.createDirectory(at: locksDirectory, withIntermediateDirectories: true)
        } catch {
            throw HomeError("cannot create the home folder \(directory.path): \(error.localizedDescription)")
        }
        if !files.fileExists(atPath: whitelistPath.path) {
            try write(Whitelist.default.plist, to: whitelistPath)
        }
        if !files.fileExists(atPath: fleetPath.path) {
            try write(Data(Fleet.default.json), to: fleetPath)
        }
    }

    func whitelist() throws(HomeError) -> Whitelist {
        do {
            return try Whitelist(plist: try read(whitelistPath))
        } catch let error as WhitelistError {
            throw HomeError("\(whitelistPath.path): \(error)")
        } catch {
            throw HomeError("cannot read \(whitelistPath.path)")
        }
    }

    func fleet() throws(HomeError) -> Fleet {
        do {
            return try Fleet(json: Array(try read(fleetPath)))
        } catch let error as FleetError {
            throw HomeError("\(fleetPath.path): \(error)")
        } catch {
            throw HomeError("cannot read \(fleetPath.path)")
        }
    }

    func store() throws(HomeError) -> VitalStore {
        do {
            return try VitalStore(path: storePath.path)
        } catch {
            throw HomeError("\(error)")
        }
    }

    /// The saved state of every device that has one.
    func worldState() throws(HomeError) -> WorldState {
        var state = WorldState()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: worldDirectory.path)) ?? []
        for name in names where name.hasSuffix(".json") {
            let mac = String(name.dropLast(5))
            if let device = try deviceState(mac) { state.devices[mac] = device }
        }
        return state
    }

    /// The saved state of device `mac`, if any.
    func deviceState(_ mac: String) throws(HomeError) -> DeviceState? {
        let path = worldDirectory.appendingPathComponent(mac + ".json")
        guard FileManager.default.fileExists(atPath: path.path) else { return nil }
        do {
            return try JSONDecoder().decode(DeviceState.self, from: try read(path))
        } catch {
            throw HomeError("\(path.path) is not a saved device state")
        }
    }

    /// Saves the state of device `mac` atomically: a reader sees the old file or the new one, never a part.
    func save(_ state: DeviceState, of mac: String) throws(HomeError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            try write(try encoder.encode(state), to: worldDirectory.appendingPathComponent(mac + ".json"))
        } catch let error as HomeError {
            throw error
        } catch {
            throw HomeError("cannot encode the state of \(mac)")
        }
    }

    func read(_ path: URL) throws(HomeError) -> Data {
        do {
            return try Data(contentsOf: path)
        } catch {
            throw HomeError("cannot read \(path.path)")
        }
    }

    /// Writes `data` to a temporary file beside `path`, flushes it, and renames it over `path`.
    func write(_ data: Data, to path: URL) throws(HomeError) {
        do {
            try data.write(to: path, options: .atomic)
        } catch {
            throw HomeError("cannot write \(path.path): \(error.localizedDescription)")
        }
    }
}

/// A home folder that cannot be used.
struct HomeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
