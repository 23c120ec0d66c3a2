// Reads a whitelist (AppWhiteList.plist, the path given) with swift-foundation's PropertyListDecoder and prints its
// size: what `vitalbridge open` would pay on every request if it read the whitelist this way (open-latency.sh
// compares it with plist-vitalbridge).
import Foundation

let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
let clock = ContinuousClock()
let start = clock.now
let entries = try PropertyListDecoder().decode([String: String].self, from: data)
let count = entries.count
let elapsed = clock.now - start
// the first decode in the process, in microseconds, on standard error; the entry count on standard output
FileHandle.standardError.write(Data("\(elapsed.components.attoseconds / 1_000_000_000_000) µs\n".utf8))
print(count)
