import ArgumentParser
import Foundation
import LayeredProtocol
import VitalBridge
import VitalSimulation
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `--home`, shared by every command that uses the hub's files.
struct HomeOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The hub's folder: store, whitelist, fleet and world state.",
            discussion: "Default: $VITALBRIDGE_HOME, else $XDG_DATA_HOME/vitalbridge, else ~/.local/share/vitalbridge.")
    )
    var home: String?
}

/// The hub's files in its home folder; missing ones are created from the embedded defaults.
///
/// Paths are plain strings and files are read and written with POSIX calls: `vitalbridge open` runs once per
/// request, and Foundation's URL and file APIs cost more at first use than the whole request.
struct Home {
    let directory: String

    var storePath: String { directory + "/vitalbridge.sqlite" }
    var whitelistPath: String { directory + "/AppWhiteList.plist" }
    var fleetPath: String { directory + "/fleet.json" }
    var worldDirectory: String { directory + "/world" }
    var locksDirectory: String { directory + "/locks" }

    /// The folder `--home` names, else `$VITALBRIDGE_HOME`, else `$XDG_DATA_HOME/vitalbridge`, else
    /// `~/.local/share/vitalbridge`.
    static func directory(option: String?) -> String {
        if let option { return option }
        if let path = environment("VITALBRIDGE_HOME") { return path }
        if let path = environment("XDG_DATA_HOME") { return path + "/vitalbridge" }
        return (environment("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path)
            + "/.local/share/vitalbridge"
    }

    /// Opens `directory`, creating it and its default files as needed.
    init(_ directory: String) throws(HomeError) {
        self.directory = directory
        for folder in [worldDirectory, locksDirectory] where !Self.isDirectory(folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw HomeError("cannot create the home folder \(directory): \(error.localizedDescription)")
            }
        }
        if access(whitelistPath, F_OK) != 0 {
            try writeFile(Whitelist.default.plist, to: whitelistPath)
        }
        if access(fleetPath, F_OK) != 0 {
            try writeFile(Fleet.default.json, to: fleetPath)
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    func whitelist() throws(HomeError) -> Whitelist {
        try load(whitelistPath) { bytes in try Whitelist(plist: bytes) }
    }

    func fleet() throws(HomeError) -> Fleet {
        try load(fleetPath) { bytes in try Fleet(json: bytes) }
    }

    func store() throws(HomeError) -> VitalStore {
        do {
            return try VitalStore(path: storePath)
        } catch {
            throw HomeError("\(error)")
        }
    }

    /// The file that keeps what device `mac` remembers.
    func statePath(_ mac: MACAddress) -> String { worldDirectory + "/\(mac).json" }

    /// The saved state of device `mac`, if any.
    func deviceState(_ mac: MACAddress) throws(HomeError) -> DeviceState? {
        let path = statePath(mac)
        guard access(path, F_OK) == 0 else { return nil }
        return try load(path, " is not a saved device state") { bytes in try DeviceState(json: bytes) }
    }

    /// Saves the state of device `mac` atomically: a reader sees the old file or the new one, never a part.
    func save(_ state: DeviceState, of mac: MACAddress) throws(HomeError) {
        try writeFile(state.json, to: statePath(mac))
    }

    /// Reads the file at `path` with `parse`; a problem is an error that starts with the path and `what` it is not.
    private func load<T>(_ path: String, _ what: String = "", _ parse: ([UInt8]) throws -> T) throws(HomeError) -> T {
        let bytes = try readFile(path)
        do {
            return try parse(bytes)
        } catch {
            throw HomeError("\(path)\(what): \(error)")
        }
    }

    /// The bytes of the file at `path`.
    func readFile(_ path: String) throws(HomeError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw HomeError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw HomeError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
        }
    }

    /// Writes `bytes` to a temporary file beside `path`, flushes it to disk and renames it over `path`, so that
    /// after a crash `path` holds either the old bytes or the new ones, never a part.
    ///
    /// The folder is not flushed: a power loss may undo the rename, and the old state is safe to come back to (a
    /// device that then sends a record again has it ignored by the store, which never stores a reading twice).
    func writeFile(_ bytes: [UInt8], to path: String) throws(HomeError) {
        func failure(_ what: String) -> HomeError {
            HomeError("cannot write \(path): \(what): \(String(cString: strerror(errno)))")
        }
        let temporary = "\(path).\(getpid()).tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("cannot create \(temporary)") }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("cannot write \(temporary)")
                close(descriptor)
                unlink(temporary)
                throw error
            }
            written += count
        }
        guard fsync(descriptor) == 0 else {
            let error = failure("cannot flush \(temporary)")
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let error = failure("cannot rename \(temporary)")
            unlink(temporary)
            throw error
        }
    }
}

/// The value of the environment variable `name`, `nil` when unset or empty (read with `getenv`, without building
/// the whole environment as `ProcessInfo` does).
func environment(_ name: String) -> String? {
    guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
    return value
}

/// A home folder that cannot be used.
struct HomeError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
