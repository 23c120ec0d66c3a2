// Reads a fleet file or a device's saved state with VitalBridge's own JSON reader, as `vitalbridge open` does on
// every request of a simulated home, and prints how long it took (json-readers.sh compares it with
// json-foundation):
//
//   json-vitalbridge fleet FILE      the fleet file (Fleet(json:))
//   json-vitalbridge state FILE      a device's saved state (DeviceState(json:))
//   json-vitalbridge make-state N    writes a blood-pressure monitor's state of N records to standard output
//   json-vitalbridge make-fleet -    writes the built-in fleet to standard output
import Foundation
import VitalCore
import VitalSimulation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(
        Data("usage: json-vitalbridge fleet|state FILE | make-state N | make-fleet -\n".utf8))
    exit(2)
}
if arguments[1] == "make-state", let count = Int(arguments[2]) {
    let records = (0..<count).map { index in
        StoredRecord(
            sequenceNumber: UInt16(index % 65_536),
            reading: .bloodPressure(
                BloodPressureReading(
                    systolic: Double(110 + index % 40), diastolic: Double(70 + index % 20), heartRate: 60 + index % 30,
                    arrhythmia: index % 7 == 0,
                    measuredAt: Timestamp(secondsSince1970: 1_700_000_000 + Int64(index) * 60))))
    }
    let state = DeviceState(
        records: DeviceMemory(records), nextSequenceNumber: UInt16(count % 65_536), battery: 80,
        generator: SeededGenerator(seed: 1), measurementsTaken: 0, spentFailures: [], boundUserID: nil, swim: false)
    FileHandle.standardOutput.write(Data(state.json))
    exit(0)
}
if arguments[1] == "make-fleet" {
    FileHandle.standardOutput.write(Data(Fleet.default.json))
    exit(0)
}
let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: arguments[2])))
let clock = ContinuousClock()
let start = clock.now
let count: Int
switch arguments[1] {
case "fleet": count = try Fleet(json: bytes).devices.count
case "state": count = try DeviceState(json: bytes).records.count
default: exit(2)
}
let elapsed = clock.now - start
// the first read in the process, in microseconds, on standard error; what was read on standard output
FileHandle.standardError.write(Data("\(elapsed.components.attoseconds / 1_000_000_000_000) µs\n".utf8))
print(count)
