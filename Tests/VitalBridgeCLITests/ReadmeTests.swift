import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalSimulation
import VitalStore
import VitalTestSupport

/// The README's commands and fleet example work as written: a newcomer's first steps are tested like the code.
@Suite("README")
struct ReadmeTests {
    static var readme: String {
        get throws {
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent()
            return try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        }
    }

    /// The fenced blocks of the README in `language`.
    static func blocks(_ language: String) throws -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in try readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The words of a shell command line: plain words and single-quoted ones, up to a `#` comment.
    static func words(_ line: Substring) -> [String] {
        var words: [String] = []
        var word: String?
        var quoted = false
        for character in line {
            if quoted {
                if character == "'" { quoted = false } else { word!.append(character) }
            } else if character == "'" {
                quoted = true
                word = word ?? ""
            } else if character == " " {
                if let finished = word { words.append(finished) }
                word = nil
            } else if character == "#", word == nil {
                break
            } else {
                word = (word ?? "") + String(character)
            }
        }
        if let word { words.append(word) }
        return words
    }

    @Test("every `swift run vitalbridge` line of the README runs and exits 0 on a fresh home")
    func commands() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        var ran = 0
        for block in try Self.blocks("sh") {
            for line in block.split(separator: "\n") where line.hasPrefix("swift run vitalbridge ") {
                let arguments = Array(Self.words(line).dropFirst(3))
                if arguments.contains(where: { $0.contains("…") }) { continue }  // a placeholder the reader fills in
                let output = try vitalbridge(arguments, environment: ["VITALBRIDGE_HOME": home.path])
                #expect(output.status == 0, "\(line): \(output.stderr)")
                if arguments == ["demo", "--keep"] {
                    // the kept home is named at the end, and `records` shows its readings with their units
                    let kept = try #require(output.stdout.split(separator: "'").dropLast().last.map(String.init))
                    defer { try? FileManager.default.removeItem(atPath: kept) }
                    let records = try vitalbridge(["records", "--home", kept])
                    #expect(records.status == 0 && records.stdout.contains("mmHg"), "\(records.stderr)")
                }
                ran += 1
            }
        }
        #expect(ran >= 12)
    }

    @Test("the README's fleet file is a working fleet: it reads, and its devices answer requests")
    func fleetExample() throws {
        let json = try #require(try Self.blocks("json").first)
        let fleet = try Fleet(json: Array(json.utf8))
        #expect(fleet.devices.map(\.model) == ["BP5", "BG5", "PO3"])
        let home = try TestHome(fleet: fleet)
        #expect(try home.run(["init", "--home", home.path]).status == 0)
        #expect(try home.run(["fleet", "show", "--home", home.path]).stdout.contains("BG5"))
        let sync = try home.callback(request(.sync, .bg5, mac: "004D3208D308"))
        // the README fleet's BG5 holds more records than one callback carries: the rest is what remains
        let records = try #require(fleet.devices[1].records?.generate?.count)
        guard case .list(let delivered)? = sync.result else {
            Issue.record("no result")
            return
        }
        #expect(sync.status == ActionStatus(action: .sync, ran: [.success]) && records == 500)
        #expect(delivered.count > 100 && sync.remaining == records - delivered.count)
        let po3 = try home.callback(request(.sync, .po3, mac: "004D3208D307"))
        #expect(po3.status == ActionStatus(action: .sync, ran: [.success]))
    }

    @Test("a mistyped command names the closest one; --version prints the version")
    func mistypedAndVersion() throws {
        for (arguments, expected) in [
            (["recrods"], "Did you mean 'records'?"), (["whitelist", "lst"], "Did you mean 'list'?"),
            (["gatt", "decod"], "Did you mean 'decode'?"), (["opne"], "Did you mean 'open'?"),
        ] {
            let output = try vitalbridge(arguments)
            #expect(output.status == 2 && output.stderr.contains(expected), "\(arguments): \(output.stderr)")
        }
        let unknown = try vitalbridge(["xyzzy"])
        #expect(unknown.status == 2 && !unknown.stderr.contains("Did you mean"))
        let version = try vitalbridge(["--version"])
        #expect(version.status == 0 && version.stdout.hasSuffix(" (store schema \(VitalStore.schemaVersion))\n"))
        #expect(version.stdout.prefix { $0 != " " }.split(separator: ".").count == 3, "\(version.stdout)")
    }
}
