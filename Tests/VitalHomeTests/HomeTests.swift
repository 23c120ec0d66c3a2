import Foundation
import LayeredProtocol
import ShareVitalSigns
import Testing
import VitalBridge
import VitalCore
import VitalHome
import VitalStore
import VitalTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// The home's files in process: what the CLI's tests prove through the binary, here without one.
@Suite("VitalHome: the home's files")
struct HomeTests {
    @Test("a new home is private, holds its default files, and opens again without being created")
    func creates() throws {
        let folder = try TemporaryDirectory("home")
        defer { folder.remove() }
        let path = folder.file("new/home")
        #expect(throws: HomeError.self) { try Home(path, create: false) }
        let home = try Home(path, create: true)
        _ = try home.store()
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o700)
        #expect(try home.whitelist() == Whitelist.default)
        #expect(stat(home.whitelistPath, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(Home.exists(home.fleetPath) && Home.exists(home.locksDirectory) && Home.exists(home.worldDirectory))
        _ = try Home(path, create: false)
    }

    @Test("a link or a pipe where a home file should be is refused, naming it; a loose mode is tightened")
    func refusesLinks() throws {
        let folder = try TemporaryDirectory("home")
        defer { folder.remove() }
        let home = try Home(folder.path, create: true)
        try "x".write(toFile: folder.file("elsewhere"), atomically: false, encoding: .utf8)
        unlink(home.whitelistPath)
        symlink(folder.file("elsewhere"), home.whitelistPath)
        #expect(throws: HomeError.self) { try home.whitelist() }
        do {
            _ = try home.whitelist()
        } catch {
            #expect(error.description.contains(home.whitelistPath) && error.description.contains("symbolic link"))
        }
        unlink(home.whitelistPath)
        mkfifo(home.whitelistPath, 0o600)
        #expect(throws: HomeError.self) { try Home.readFile(home.whitelistPath, limit: 10) }
        chmod(home.fleetPath, 0o644)
        _ = try Home.readFile(home.fleetPath, limit: Home.Limit.fleet)
        var status = stat()
        #expect(stat(home.fleetPath, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(throws: HomeError.self) { try Home.readFile(home.fleetPath, limit: 3) }
    }

    @Test("an atomic write replaces the file whole and leaves no temporary file; a dead writer's is removed")
    func atomicWrites() throws {
        let folder = try TemporaryDirectory("home")
        defer { folder.remove() }
        let path = folder.file("file")
        try Home.writeFile(Array("old".utf8), to: path)
        try Home.writeFile(Array("new".utf8), to: path)
        #expect(try Home.readFile(path, limit: 10) == Array("new".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["file"])
        // pid 4194305 is above Linux's largest: that writer has ended; this process's own file is kept
        let stale = folder.file(".file.4194305-ab.tmp")
        let live = folder.file(".file.\(getpid())-cd.tmp")
        for file in [stale, live] { _ = FileManager.default.createFile(atPath: file, contents: Data()) }
        Home.removeStaleTemporaryFiles(in: folder.path)
        #expect(!Home.exists(stale) && Home.exists(live))
        // a failing fill leaves the old file and no temporary one
        #expect(throws: HomeError.self) {
            try Home.writeFile(to: path) { _ in
                errno = EIO
                return false
            }
        }
        #expect(try Home.readFile(path, limit: 10) == Array("new".utf8))
    }

    @Test("a reservation owner names this live process; an ended or reused process is gone")
    func processIdentity() throws {
        let owner = ProcessIdentity.reservationOwner().owner
        #expect(!ProcessIdentity.isGone(owner + "#1"))
        #expect(ProcessIdentity.isGone("4194305:1#1"))
        let pid = getpid()
        #expect(ProcessIdentity.isGone("\(pid):1#1") == (ProcessIdentity.startTime(of: pid) != "1"))
        #expect(!ProcessIdentity.isGone("not an owner"))
    }

    @Test("DDS sources: an https URL with a host or an app scheme, never one that already carries a result")
    func ddsSources() throws {
        var sources = DDSSources()
        try sources.set("https://www.demoapp.com/dds/", for: "DemoApp")
        try sources.set("demoapp://dds?x=1", for: "Other")
        for (callback, source) in [
            ("https://", "A"), ("https://user@host/", "A"), ("javascript:alert(1)", "A"), ("https://h/?rmssd=1", "A"),
            ("https://h/", ""), ("https://h/", String(repeating: "s", count: 101)), ("https://h/", "a\u{7}"),
        ] {
            #expect(throws: HomeError.self, "\(callback) for \(source)") { try sources.set(callback, for: source) }
        }
        let folder = try TemporaryDirectory("home")
        defer { folder.remove() }
        let home = try Home(folder.path, create: true)
        try DDSSources.save(sources, in: home)
        #expect(try DDSSources.load(home).entries == sources.entries)
        #expect(try DDSSources.Registry(home: home).callback(for: "DemoApp") == "https://www.demoapp.com/dds/")
        try Home.writeFile(Array("{\"A\": 1}".utf8), to: DDSSources.path(home))
        #expect(throws: HomeError.self) { try DDSSources.load(home) }
    }

    @Test("the child-process runner reports a program's status, its output, and one it cannot start")
    func childProcess() throws {
        let ran = try ChildProcess(["sh", "-c", "echo out; echo err >&2; exit 4"]).run(capture: .both)
        #expect(ChildProcess.describe(ran.status) == "exited with status 4" && ran.output == "out\nerr\n")
        let killed = try ChildProcess(["sh", "-c", "kill -9 $$"]).run()
        #expect(ChildProcess.describe(killed.status) == "was ended by signal 9")
        #expect(throws: HomeError.self) { try ChildProcess(["/nonexistent/program"]).run() }
        #expect(Opener("gio open")?.command == ["gio", "open"] && Opener("-x") == nil && Opener("a\u{1B}b") == nil)
        #expect(OpenerHandOff.scheme(of: "myapp://x?bp=120") == "myapp://")
    }
}

@Suite("VitalHome: the hub's settings from the environment")
struct HubSettingsTests {
    // read from the setting's text: setenv in a test would race the other tests' threads reading the environment
    @Test("VITALBRIDGE_SCAN_SECONDS sets an add's scan window from 0.1 to 60 s; anything else leaves 5 s")
    func scanWindow() {
        for (text, expected) in [
            ("1", Duration.seconds(1)), ("0.25", .milliseconds(250)), ("60", .seconds(60)), ("0", .seconds(5)),
            ("61", .seconds(5)), ("soon", .seconds(5)), ("", .seconds(5)), (nil, .seconds(5)),
        ] as [(String?, Duration)] {
            #expect(Hub.scanDuration(setting: text) == expected, "\(text ?? "unset")")
        }
    }
}
