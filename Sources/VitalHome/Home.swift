import Foundation
import LayeredProtocol
import VitalBridge
import VitalCore
import VitalSimulation
import VitalStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The hub's files in its home folder.
///
/// The home holds health data, so it is private and never followed: the folder is 0700 and its files 0600
/// (an existing home is tightened when opened); a symbolic link or a file that is not a regular one where a home
/// file should be is refused; every file is written under a new unique name (`O_EXCL | O_NOFOLLOW`) and renamed
/// into place, and temporary files a killed process left behind are removed; each file has a size limit
/// (``Limit``). Only the commands that write (`open`, `init`, `whitelist add|remove`) create a home; the others
/// refuse a folder that is not one.
///
/// Paths are plain strings and files are read and written with POSIX calls: `vitalbridge open` runs once per
/// request, and Foundation's URL and file APIs cost more at first use than the whole request.
public struct Home: Sendable {
    /// The home folder.
    public let directory: String

    /// The store, SQLite.
    public var storePath: String { directory + "/vitalbridge.sqlite" }
    /// The callers the hub answers, a property list.
    public var whitelistPath: String { directory + "/AppWhiteList.plist" }
    /// The simulated fleet's script.
    public var fleetPath: String { directory + "/fleet.json" }
    /// One line naming the Bluetooth adapter the hub uses (`hci0`): its transport is then BlueZ.
    public var adapterPath: String { directory + "/adapter" }

    /// The adapter the home names, if any.
    public func adapter() throws(HomeError) -> String? {
        guard Self.exists(adapterPath) else { return nil }
        let bytes = try Self.readFile(adapterPath, limit: 64)
        let name = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard Self.isAdapterName(name) else {
            throw HomeError("\(adapterPath) does not name an adapter such as hci0")
        }
        return name
    }

    /// Makes the home reach devices through the BlueZ adapter `name` (`hci0`) from now on, written in
    /// ``adapterPath``; `nil`: through the simulator again (the file removed).
    public func setAdapter(_ name: String?) throws(HomeError) {
        guard let name else {
            if Self.exists(adapterPath) { unlink(adapterPath) }
            return
        }
        try Self.writeFile(Array((name + "\n").utf8), to: adapterPath)
    }

    /// Whether `name` is an adapter name as BlueZ gives them: `hci` and digits.
    public static func isAdapterName(_ name: String) -> Bool {
        name.hasPrefix("hci") && name.count > 3 && name.dropFirst(3).allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// The simulated devices' saved states, one file each.
    public var worldDirectory: String { directory + "/world" }
    /// The devices' lock files, one each.
    public var locksDirectory: String { directory + "/locks" }

    /// The largest file the hub reads, per kind of file.
    public enum Limit {
        /// `AppWhiteList.plist`: 1 MiB (thousands of callers).
        public static let whitelist = 1 << 20
        /// `fleet.json`: 32 MiB (a scripted list of hundreds of thousands of records).
        public static let fleet = 32 << 20
        /// `world/<MAC>.json`, what one simulated device stores: 64 MiB.
        public static let deviceState = 64 << 20
    }

    /// The folder `--home` names, else `$VITALBRIDGE_HOME`, else `$XDG_DATA_HOME/vitalbridge`, else
    /// `~/.local/share/vitalbridge`.
    public static func directory(option: String?) -> String {
        if let option { return option }
        if let path = environment("VITALBRIDGE_HOME") { return path }
        if let path = environment("XDG_DATA_HOME") { return path + "/vitalbridge" }
        return (environment("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path)
            + "/.local/share/vitalbridge"
    }

    /// Opens the home `directory`: creating it and its missing default files when `create`, else requiring a home
    /// that exists (one with a store). Either way the folders and files it has are checked and tightened.
    public init(_ directory: String, create: Bool) throws(HomeError) {
        self.directory = directory
        if create {
            try Self.makeDirectory(directory, intermediates: true)
        } else if !Self.exists(storePath) {
            throw HomeError(
                "no VitalBridge home at \(directory) (create one with: vitalbridge init --home '\(directory)')")
        }
        try Self.checkDirectory(directory, ownedByUser: true)
        for folder in [worldDirectory, locksDirectory] {
            if create { try Self.makeDirectory(folder, intermediates: false) }
            if Self.exists(folder) { try Self.checkDirectory(folder, ownedByUser: false) }
        }
        for file in [storePath, storePath + "-wal", storePath + "-shm", storePath + ".lock"] {
            try Self.checkFile(file)
        }
        guard create else { return }
        Self.removeStaleTemporaryFiles(in: directory)
        Self.removeStaleTemporaryFiles(in: worldDirectory)
        if !Self.exists(whitelistPath) {
            try Self.writeFile(Whitelist.default.plist, to: whitelistPath)
        }
        if !Self.exists(fleetPath) {
            try Self.writeFile(Fleet.default.json, to: fleetPath)
        }
    }

    /// The home at `directory`, neither checked nor changed: for `doctor`, which reports what the other commands
    /// would refuse or tighten.
    public init(unchecked directory: String) { self.directory = directory }

    /// Whether anything is at `path`, a link included (even one that leads nowhere): `access` would follow it.
    public static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    /// Creates the folder `path` (0700) unless something is there already: another process may be creating it at
    /// the same moment, so an existing one is no error (``checkDirectory(_:ownedByUser:)`` then says whether it is
    /// a folder). Its missing parents are created when `intermediates`.
    public static func makeDirectory(_ path: String, intermediates: Bool) throws(HomeError) {
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return }
        if intermediates && errno == ENOENT {
            do {
                // creates the parents; a folder that another process made in the meantime is no error here
                try FileManager.default.createDirectory(
                    atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                return
            } catch {
                throw HomeError("cannot create the folder \(path): \(error.localizedDescription)")
            }
        }
        throw HomeError("cannot create the folder \(path): \(String(cString: strerror(errno)))")
    }

    /// Throws unless `path` is a folder (the home itself may be reached through a link the user made; its
    /// subfolders may not), owned by this user when `ownedByUser`; tightens it to 0700.
    public static func checkDirectory(_ path: String, ownedByUser: Bool) throws(HomeError) {
        var status = stat()
        guard (ownedByUser ? stat(path, &status) : lstat(path, &status)) == 0 else {
            throw HomeError("cannot use \(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw HomeError("\(path) is not a folder (a link or another kind of file); the hub does not follow links")
        }
        guard status.st_uid == geteuid() else {
            throw HomeError("\(path) belongs to another user; a VitalBridge home must be the user's own")
        }
        if status.st_mode & 0o077 != 0 { chmod(path, 0o700) }
    }

    /// Throws if `path` exists and is a link or not a regular file; tightens it to 0600.
    public static func checkFile(_ path: String) throws(HomeError) {
        var status = stat()
        guard lstat(path, &status) == 0 else { return }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw HomeError("\(path) is not a regular file (a link, a pipe or a device); the hub does not follow links")
        }
        if status.st_mode & 0o077 != 0 { chmod(path, 0o600) }
    }

    /// The callers the home answers: its whitelist file, else the default one.
    public func whitelist() throws(HomeError) -> Whitelist {
        guard Self.exists(whitelistPath) else { return Whitelist.default }
        return try load(whitelistPath, limit: Limit.whitelist) { bytes in try Whitelist(plist: bytes) }
    }

    /// The home's simulated fleet: its fleet file, else the built-in one.
    public func fleet() throws(HomeError) -> Fleet {
        guard Self.exists(fleetPath) else { return Fleet.default }
        return try load(fleetPath, limit: Limit.fleet) { bytes in try Fleet(json: bytes) }
    }

    /// The store; opened to read when `readOnly`: nothing is written to it, unless an older release wrote it, which
    /// is upgraded first (a user who cannot write it is told to run `vitalbridge init`).
    public func store(readOnly: Bool = false) throws(HomeError) -> VitalStore {
        do {
            return try VitalStore(path: storePath, readOnly: readOnly)
        } catch  where error.code == .upgradeRefused {
            throw HomeError("\(error); `vitalbridge init --home \(directory)` upgrades it, run by the home's owner")
        } catch {
            throw HomeError("\(error)")
        }
    }

    /// The file that keeps what device `mac` remembers.
    public func statePath(_ mac: MACAddress) -> String { worldDirectory + "/\(mac).json" }

    /// The saved state of device `mac`, if any.
    public func deviceState(_ mac: MACAddress) throws(HomeError) -> DeviceState? {
        let path = statePath(mac)
        var status = stat()
        guard lstat(path, &status) == 0 else { return nil }
        return try load(path, " is not a saved device state", limit: Limit.deviceState) { bytes in
            try DeviceState(json: bytes)
        }
    }

    /// Saves the state of device `mac` atomically: a reader sees the old file or the new one, never a part.
    public func save(_ state: DeviceState, of mac: MACAddress) throws(HomeError) {
        try Self.writeFile(state.json, to: statePath(mac))
    }

    /// Reads the file at `path` with `parse`; a problem is an error that starts with the path and `what` it is not.
    private func load<T>(_ path: String, _ what: String = "", limit: Int, _ parse: ([UInt8]) throws -> T)
        throws(HomeError) -> T
    {
        let bytes = try Self.readFile(path, limit: limit)
        do {
            return try parse(bytes)
        } catch {
            throw HomeError("\(path)\(what): \(error)")
        }
    }

    /// The bytes of one of the user's own files outside the home (a desktop file, a QR code's text), at most
    /// `limit`: unlike the home's files, their mode is theirs and left as it is.
    public static func readUserFile(_ path: String, limit: Int = 1 << 20) throws(HomeError) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw HomeError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        guard data.count <= limit else { throw HomeError("\(path) is larger than \(limit) bytes") }
        return Array(data)
    }

    /// The bytes of the regular file at `path`, at most `limit` of them; a link, a pipe, a device or a larger file
    /// is refused. The file is tightened to 0600.
    public static func readFile(_ path: String, limit: Int) throws(HomeError) -> [UInt8] {
        // O_NONBLOCK: opening a pipe must not wait for a writer; O_NOFOLLOW: a link is refused (ELOOP)
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ELOOP {
                throw HomeError("\(path) is a symbolic link; the hub does not follow links in its home")
            }
            throw HomeError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw HomeError("\(path) is not a regular file (a pipe or a device); the hub reads only regular files")
        }
        if status.st_mode & 0o077 != 0 { fchmod(descriptor, 0o600) }
        guard Int(status.st_size) <= limit else {
            throw HomeError("\(path) is larger than its limit of \(limit) bytes")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw HomeError("cannot read \(path): \(String(cString: strerror(errno)))") }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            guard bytes.count <= limit else { throw HomeError("\(path) is larger than its limit of \(limit) bytes") }
        }
    }

    /// The folder of `path` (`.` if it names none) and the file's name.
    public static func folderAndName(of path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        return (String(path[..<slash]), String(path[path.index(after: slash)...]))
    }

    /// Writes `bytes` to a new file with a unique name beside `path` (created with `O_EXCL | O_NOFOLLOW`, mode
    /// 0600), flushes it to disk and renames it over `path`, so that after a crash `path` holds either the old bytes
    /// or the new ones, never a part, and no link planted in the home is ever followed.
    ///
    /// The folder is not flushed: a power loss may undo the rename, and the old state is safe to come back to (a
    /// device that then sends a record again has it ignored by the store, which never stores a reading twice).
    public static func writeFile(_ bytes: [UInt8], to path: String) throws(HomeError) {
        try writeFile(to: path) { writeAll(bytes, to: $0) }
    }

    /// As `writeFile(_:to:)`, the bytes written by `fill` to the temporary file's descriptor as it makes them (it
    /// returns `false`, with `errno` set, when a write fails): a file too large to be held whole first.
    public static func writeFile(to path: String, _ fill: (Int32) -> Bool) throws(HomeError) {
        func failure(_ what: String) -> HomeError {
            HomeError("cannot write \(path): \(what): \(String(cString: strerror(errno)))")
        }
        let (folder, name) = folderAndName(of: path)
        var temporary = ""
        var descriptor: Int32 = -1
        while descriptor < 0 {
            temporary = "\(folder)/.\(name).\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16)).tmp"
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                if errno == EEXIST { continue }
                throw failure("cannot create a temporary file in \(folder)")
            }
        }
        guard fill(descriptor) else {
            let error = failure("cannot write \(temporary)")
            close(descriptor)
            unlink(temporary)
            throw error
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

    /// Removes the temporary files (`….<pid>-<random>.tmp`, or `….<pid>.tmp` from earlier versions) in `folder`
    /// whose process has ended: all of them, or in a folder of the user's only those ``writeFile(_:to:)`` made for
    /// the file `name` (`.<name>.<pid>-<random>.tmp`).
    ///
    /// Read with `opendir`, not `FileManager`, whose first use costs more than the request `open` runs.
    public static func removeStaleTemporaryFiles(in folder: String, of name: String? = nil) {
        guard let directory = opendir(folder) else { return }
        var entries: [String] = []
        while let record = readdir(directory) {
            let entry = withUnsafeBytes(of: record.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if entry.hasSuffix(".tmp"), name.map({ entry.hasPrefix(".\($0).") }) ?? true { entries.append(entry) }
        }
        closedir(directory)
        for entry in entries {
            let stem = entry.dropLast(4)
            guard let dot = stem.lastIndex(of: "."),
                let pid = Int32(stem[stem.index(after: dot)...].prefix { $0 != "-" }), pid > 0,
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            unlink(folder + "/" + entry)
        }
    }
}

/// Writes all of `bytes` to `descriptor` (retrying short and interrupted writes); `false` with `errno` set if it
/// cannot.
public func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Bool {
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return false }
        written += count
    }
    return true
}

/// The value of the environment variable `name`, `nil` when unset or empty (read with `getenv`, without building
/// the whole environment as `ProcessInfo` does).
public func environment(_ name: String) -> String? {
    guard let value = getenv(name).map({ String(cString: $0) }), !value.isEmpty else { return nil }
    return value
}

/// A home folder that cannot be used.
public struct HomeError: Error, CustomStringConvertible {
    /// The one line that says what is wrong, naming the file.
    public let description: String
    /// The error `description` says.
    public init(_ description: String) { self.description = description }
}
