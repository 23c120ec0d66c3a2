#!/usr/bin/env bash
# plist-readers.sh without the benchmark package (which needs ordo-one/benchmark resolved and a release build of the
# whole of VitalBridge): the same two programs compiled on their own with `swiftc -O` — Benchmarks/Sources/
# plist-foundation as it is, and VitalBridge's XMLPropertyList (Sources/LayeredProtocol/PropertyList.swift) with a main
# that times its first read of the same whitelist, the entries' URL checks of `Whitelist(plist:)` left out — then
# plist-readers.sh's 200 alternated processes and medians. Run from the repository root:
#   bash Benchmarks/plist-readers-standalone.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
mkdir "$bin/hand"
cp "$root/Sources/LayeredProtocol/PropertyList.swift" "$bin/hand/"
cat >"$bin/hand/main.swift" <<'SWIFT'
import Foundation

let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
let clock = ContinuousClock()
let start = clock.now
var entries: [String: String] = [:]
for (key, value) in try XMLPropertyList.dictionary(Array(data)) {
    if case .string(let destination) = value { entries[key] = destination }
}
let count = entries.count
let elapsed = clock.now - start
FileHandle.standardError.write(Data("\(elapsed.components.attoseconds / 1_000_000_000_000) µs\n".utf8))
print(count)
SWIFT
swiftc -O "$root/Benchmarks/Sources/plist-foundation/main.swift" -o "$bin/plist-foundation"
swiftc -O "$bin"/hand/*.swift -o "$bin/plist-vitalbridge"
# plist-readers.sh from its plist on, with these two programs
sed -e '/^cd /d' -e '/swift build/d' -e "s#\\.build/release/#$bin/#g" "$root/Benchmarks/plist-readers.sh" | bash
