import Foundation
import LayeredProtocol
import ShareVitalSigns
import VitalBridge
import VitalCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The desktop's handler registration: a desktop entry in the user's applications folder and its scheme defaults
/// in the user's `mimeapps.list` (the freedesktop.org Desktop Entry and MIME Applications Associations
/// specifications).
public struct DesktopHandler {
    /// `$XDG_DATA_HOME/applications`.
    public let applications: String
    /// `$XDG_CONFIG_HOME/mimeapps.list`.
    public let mimeApps: String

    /// The registration in `applications` (a desktop entry) and `mimeApps` (the scheme defaults).
    public init(applications: String, mimeApps: String) {
        self.applications = applications
        self.mimeApps = mimeApps
    }

    public static let fileName = "vitalbridge.desktop"
    /// The key in which the desktop entry keeps the defaults it replaced (`mime=entry;…`).
    public static let previousKey = "X-VitalBridge-Previous-Defaults"

    /// The schemes the hub handles: the layered app's, its own, and those of the ShareVitalSigns signs it supplies.
    public static let schemes: [String] =
        [layeredAppScheme, "vitalbridge"]
        + VitalSign.named.compactMap { $0.scheme != nil && SVSAdapter.supplied.provides($0.sign) ? $0.scheme : nil }

    public static var mimeTypes: [String] { schemes.map { "x-scheme-handler/" + $0 } }

    /// The folders of the user's environment (`XDG_DATA_HOME`, `XDG_CONFIG_HOME`, else under `HOME`).
    public static var current: DesktopHandler {
        let user = environment("HOME") ?? FileManager.default.homeDirectoryForCurrentUser.path
        return DesktopHandler(
            applications: (environment("XDG_DATA_HOME") ?? user + "/.local/share") + "/applications",
            mimeApps: (environment("XDG_CONFIG_HOME") ?? user + "/.config") + "/mimeapps.list")
    }

    public var desktopPath: String { applications + "/" + Self.fileName }

    /// The absolute path of this process's binary.
    public static func runningBinary() throws(HomeError) -> String {
        guard let path = realpath("/proc/self/exe", nil) else {
            throw HomeError("cannot find this binary's path: \(String(cString: strerror(errno)))")
        }
        defer { free(path) }
        return String(cString: path)
    }

    /// `path` made absolute against the working directory, without `.` or `..` parts.
    public static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }

    /// Installs this binary as the handler, running `open --deliver %u` on the home `home` (made absolute, and
    /// created when it does not exist), else on each request's usual home: ``install(exec:)``.
    public func installThisBinary(home: String?) throws(HomeError) -> (path: String, needsQuoting: Bool) {
        var arguments = [try Self.runningBinary(), "open"]
        if let home {
            let directory = Self.absolute(home)
            _ = try Home(directory, create: true)
            arguments += ["--home", directory]
        }
        return try install(exec: arguments + ["--deliver", "%u"])
    }

    /// Writes the desktop entry running `exec`, validates it, and makes it every scheme's default; the path
    /// written and whether the command needed quoting.
    public func install(exec: [String]) throws(HomeError) -> (path: String, needsQuoting: Bool) {
        let current = try MimeApps(readingAt: mimeApps)
        // the defaults this replaces: those kept by an earlier install, else the ones in effect now
        let earlier = try installedEntry().map { Self.previousDefaults(in: $0) } ?? [:]
        var previous: [String: String] = [:]
        for mime in Self.mimeTypes {
            if let value = earlier[mime] ?? current.defaults(for: mime), value != Self.fileName {
                previous[mime] = value
            }
        }
        let (command, quoted) = try Self.execValue(exec)
        let entry = Self.desktopEntry(exec: command, previous: previous)
        try Home.makeDirectory(applications, intermediates: true)
        let candidate = applications + "/.vitalbridge-\(getpid()).desktop"
        try Home.writeFile(Array(entry.utf8), to: candidate)
        defer { unlink(candidate) }
        try runTool(["desktop-file-validate", candidate], "(Debian: desktop-file-utils)")
        guard rename(candidate, desktopPath) == 0 else {
            throw HomeError("cannot write \(desktopPath): \(String(cString: strerror(errno)))")
        }
        try runTool(["xdg-mime", "default", Self.fileName] + Self.mimeTypes, "(Debian: xdg-utils)")
        return (desktopPath, quoted)
    }

    /// Puts back the defaults the installed entry replaced (for schemes whose default is still VitalBridge's) and
    /// removes the entry; `false` when none is installed.
    public func uninstall() throws(HomeError) -> Bool {
        guard let entry = try installedEntry() else { return false }
        guard entry.contains("\n\(Self.previousKey)=") else {
            throw HomeError("\(desktopPath) was not written by install-handler; it is left as it is")
        }
        let previous = Self.previousDefaults(in: entry)
        var apps = try MimeApps(readingAt: mimeApps)
        let ours = Self.mimeTypes.filter { apps.defaults(for: $0) == Self.fileName }
        for mime in ours { apps.setDefault(previous[mime], for: mime) }
        if !ours.isEmpty { try apps.write(to: mimeApps) }
        guard unlink(desktopPath) == 0 else {
            throw HomeError("cannot remove \(desktopPath): \(String(cString: strerror(errno)))")
        }
        return true
    }

    /// The installed desktop entry's text, `nil` when there is none.
    public func installedEntry() throws(HomeError) -> String? {
        guard Home.exists(desktopPath) else { return nil }
        return String(decoding: try Home.readUserFile(desktopPath), as: UTF8.self)
    }

    /// The desktop entry of the handler.
    public static func desktopEntry(exec: String, previous: [String: String]) -> String {
        let kept = previous.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return """
            [Desktop Entry]
            Type=Application
            Name=VitalBridge
            Comment=Shares vital signs between health apps and measuring devices
            Exec=\(exec)
            Terminal=false
            NoDisplay=true
            MimeType=\(mimeTypes.map { $0 + ";" }.joined())
            \(previousKey)=\(kept.map { escapeListItem($0) + ";" }.joined())

            """
    }

    /// The defaults an installed entry keeps, by MIME type.
    public static func previousDefaults(in entry: String) -> [String: String] {
        guard
            let line = entry.split(separator: "\n").first(where: { $0.hasPrefix(previousKey + "=") })
        else { return [:] }
        var result: [String: String] = [:]
        for item in splitList(line.dropFirst(previousKey.count + 1)) {
            guard let equals = item.firstIndex(of: "=") else { continue }
            result[String(item[..<equals])] = String(item[item.index(after: equals)...])
        }
        return result
    }

    /// `item` as one element of a desktop entry's list value: `;` and `\` escaped.
    public static func escapeListItem(_ item: String) -> String {
        item.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ";", with: "\\;")
    }

    /// The elements of a desktop entry's list value (`a;b\;c;` → `a`, `b;c`).
    public static func splitList(_ value: Substring) -> [String] {
        var items: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped {
                current.append(character == "s" ? " " : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ";" {
                items.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { items.append(current) }
        return items
    }

    /// The `Exec` value running `arguments` (the last may be a field code such as `%u`), quoted as the Desktop
    /// Entry specification says, and whether any argument needed quoting. A control character cannot be written.
    public static func execValue(_ arguments: [String]) throws(HomeError) -> (String, Bool) {
        let reserved = Set(" \t\n\"'\\><~|&;$*?#()`")
        var quoted = false
        var words: [String] = []
        for (index, argument) in arguments.enumerated() {
            if argument.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw HomeError(
                    "a path with a control character cannot be a desktop command: \(argument.debugDescription)")
            }
            let fieldCode = index == arguments.count - 1 && argument.hasPrefix("%")
            var word = fieldCode ? argument : argument.replacingOccurrences(of: "%", with: "%%")
            if argument.isEmpty || argument.contains(where: reserved.contains) {
                quoted = true
                var inner = ""
                for character in word {
                    if "\"`$\\".contains(character) { inner.append("\\") }
                    inner.append(character)
                }
                word = "\"" + inner + "\""
            }
            words.append(word)
        }
        // a string value escapes its backslashes once more
        return (words.joined(separator: " ").replacingOccurrences(of: "\\", with: "\\\\"), quoted)
    }

    /// Runs a desktop tool; an error naming its package when it is missing, its output when it fails (or, for
    /// `desktop-file-validate`, when it warns).
    public func runTool(_ arguments: [String], _ package: String) throws(HomeError) {
        let output: (status: Int32, output: String)
        do {
            output = try ChildProcess(arguments).run(capture: .both)
        } catch {
            throw HomeError("\(error) \(package)")
        }
        let text = output.output.trimmingCharacters(in: .whitespacesAndNewlines)
        guard output.status == 0, text.isEmpty || arguments[0] != "desktop-file-validate" else {
            throw HomeError(
                "\(arguments[0]) \(ChildProcess.describe(output.status)): \(text.isEmpty ? "no output" : text)")
        }
    }
}

/// The `[Default Applications]` group of a user's `mimeapps.list`, edited in place: every other line stays as it
/// was.
public struct MimeApps {
    public var lines: [String]
    public let existed: Bool
    /// The file's permission bits, kept when it is written back.
    public let mode: mode_t

    public static let group = "[Default Applications]"

    public init(readingAt path: String) throws(HomeError) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            (lines, existed, mode) = ([], false, 0o600)
            return
        }
        let text = String(decoding: try Home.readUserFile(path), as: UTF8.self)
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        existed = true
        mode = status.st_mode & 0o777
    }

    /// The index of each line of the default group, with its key.
    private var defaultLines: [(index: Int, key: String)] {
        var inGroup = false
        var found: [(Int, String)] = []
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("[") {
                inGroup = line == Self.group
            } else if inGroup, let equals = line.firstIndex(of: "=") {
                found.append((index, line[..<equals].trimmingCharacters(in: .whitespaces)))
            }
        }
        return found
    }

    /// The first desktop entry `mime` defaults to, `nil` when none is set.
    public func defaults(for mime: String) -> String? {
        guard let line = defaultLines.first(where: { $0.key == mime }) else { return nil }
        let value = lines[line.index].drop { $0 != "=" }.dropFirst()
        return DesktopHandler.splitList(value).first?.trimmingCharacters(in: .whitespaces)
    }

    /// Sets `mime`'s default to `entry` (as written, a list value), or removes it when `entry` is `nil`.
    public mutating func setDefault(_ entry: String?, for mime: String) {
        if let line = defaultLines.first(where: { $0.key == mime }) {
            if let entry { lines[line.index] = "\(mime)=\(entry)" } else { lines.remove(at: line.index) }
        } else if let entry {
            if let last = defaultLines.last?.index {
                lines.insert("\(mime)=\(entry)", at: last + 1)
            } else if let header = lines.firstIndex(of: Self.group) {
                lines.insert("\(mime)=\(entry)", at: header + 1)
            } else {
                lines += [Self.group, "\(mime)=\(entry)"]
            }
        }
    }

    /// Writes the lines back to `path` (keeping the file's mode); a file that is left with nothing but an empty
    /// default group is removed.
    public func write(to path: String) throws(HomeError) {
        let meaningful = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && $0 != Self.group }
        if meaningful.isEmpty {
            if existed, unlink(path) != 0 {
                throw HomeError("cannot remove \(path): \(String(cString: strerror(errno)))")
            }
            return
        }
        try Home.writeFile(Array((lines.joined(separator: "\n") + "\n").utf8), to: path)
        chmod(path, mode)
    }
}
