// Reads a whitelist (AppWhiteList.plist, the path given) with VitalBridge's own XML property-list reader, as
// `vitalbridge open` does, and prints its size (open-latency.sh compares it with plist-foundation).
import Foundation
import LayeredProtocol

let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
let clock = ContinuousClock()
let start = clock.now
let count = try Whitelist(plist: Array(data)).entries.count
let elapsed = clock.now - start
// the first decode in the process, in microseconds, on standard error; the entry count on standard output
FileHandle.standardError.write(Data("\(elapsed.components.attoseconds / 1_000_000_000_000) µs\n".utf8))
print(count)
