// Runs one micro-benchmark's work COUNT times, for `valgrind --tool=callgrind` to count its instructions:
//
//   instructions WORK COUNT
//
// figures.sh runs each work at two counts and divides the difference by the difference of the counts: the
// instructions of one iteration, without the process's start or anything done once. The work is the ordo-one
// benchmarks' own, on the same inputs (BenchmarkInputs).
import BenchmarkInputs
import Foundation
import HealthGATT
import LayeredProtocol
import VitalCore

/// Keeps `value` alive and opaque to the optimizer, so the work producing it is done.
@inline(never) @_optimize(none)
func consume<T>(_ value: T) {}

let works: KeyValuePairs<String, () -> Void> = [
    "url-components": { consume(URLComponents(string: Inputs.measurementURL)?.queryItems) },
    "layered-request": { consume(try? LayeredRequest(parsing: Inputs.measurementURL, platform: .ios)) },
    "decode-blood-pressure": { consume(try? BloodPressureMeasurement(bytes: Inputs.bloodPressureBytes)) },
    "decode-glucose": { consume(try? GlucoseMeasurement(bytes: Inputs.glucoseBytes)) },
]

let arguments = CommandLine.arguments
guard arguments.count == 3, let work = works.first(where: { $0.key == arguments[1] })?.value,
    let count = Int(arguments[2]), count >= 0
else {
    let names = works.map(\.key).joined(separator: " | ")
    FileHandle.standardError.write(Data("usage: instructions <\(names)> COUNT (COUNT >= 0)\n".utf8))
    exit(2)
}
for _ in 0..<count { work() }
