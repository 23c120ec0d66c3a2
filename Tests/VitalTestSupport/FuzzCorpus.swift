import Foundation

/// The seed corpus of the libFuzzer targets (`Fuzz/Corpus/<target>/`), made from the tests' own examples.
///
/// Each test target that owns examples of a parser lists them as seeds of the parser's fuzz target. The test checks
/// that the committed files are exactly those seeds; `VITALBRIDGE_WRITE_CORPUS=1 swift test --filter Corpus`
/// writes them after an example is added or changed.
public enum FuzzCorpus {
    /// The folder of `target`'s seeds.
    public static func folder(of target: String) -> URL {
        Oracles.root.appendingPathComponent("Fuzz/Corpus/\(target)")
    }

    /// Compares the committed seeds of `target` with `seeds` (a file name and its bytes each), or writes them when
    /// `VITALBRIDGE_WRITE_CORPUS` is `1`. Returns what differs: a seed missing or changed, a committed file that is
    /// no seed.
    public static func differences(_ target: String, _ seeds: [(name: String, bytes: [UInt8])]) throws -> [String] {
        let folder = folder(of: target)
        let files = FileManager.default
        if ProcessInfo.processInfo.environment["VITALBRIDGE_WRITE_CORPUS"] == "1" {
            try? files.removeItem(at: folder)
            try files.createDirectory(at: folder, withIntermediateDirectories: true)
            for seed in seeds { try Data(seed.bytes).write(to: folder.appendingPathComponent(seed.name)) }
            return []
        }
        var differences: [String] = []
        for seed in seeds {
            let data = files.contents(atPath: folder.appendingPathComponent(seed.name).path)
            if data.map(Array.init) != seed.bytes {
                differences.append("\(target)/\(seed.name) is \(data == nil ? "missing" : "not the test's example")")
            }
        }
        let names = Set(seeds.map(\.name))
        for name in (try? files.contentsOfDirectory(atPath: folder.path)) ?? [] where !names.contains(name) {
            differences.append("\(target)/\(name) is no seed of the tests")
        }
        return differences
    }
}
