// Reads a fleet file or a device's saved state with swift-foundation's JSONDecoder into Decodable mirrors of their
// types, and prints how long it took (json-readers.sh compares it with json-vitalbridge):
//
//   json-foundation fleet FILE
//   json-foundation state FILE
//
// The mirrors are synthesized and check nothing: no unknown field, no range, no family. They are the least a
// Codable reader of these files would do, so the figure is the floor of its cost.
import Foundation

struct Reading: Decodable {
    var measuredAt: String?
    var systolic: Double?
    var diastolic: Double?
    var pulse: Double?
    var arrhythmia: Bool?
    var glucose: Double?
    var weight: Double?
    var bodyFat: Double?
    var temperature: Double?
    var spo2: Double?
    var pi: Double?
    var date: String?
    var steps: Int?
    var calories: Int?
    var sleepMinutes: Int?
    var sleepEfficiency: Int?
    var swimMinutes: Int?
    var swimCalories: Int?
}

struct Fleet: Decodable {
    struct User: Decodable {
        var cancelAt: String?
        var declineConnect: Bool?
        var qrCode: String?
        var chooseDevice: String?
    }
    struct Records: Decodable {
        struct Generated: Decodable {
            var count: Int
            var seed: UInt64?
            var from: String
            var to: String
        }
        var list: [Reading]?
        var generate: Generated?
    }
    struct Device: Decodable {
        var model: String
        var mac: String
        var serial: String?
        var firmware: String?
        var battery: Int?
        var paired: Bool?
        var inRange: Bool?
        var records: Records?
        var nextMeasurements: [Reading]?
        var seed: UInt64?
        var authenticationResult: Int?
        var recordingSince: String?
        var bodyComposition: String?
        var spotCheck: Bool?
        var clock: Bool?
        var abortFirstConnection: Bool?
    }
    var start: String?
    var user: User?
    var devices: [Device]
}

struct StateHeader: Decodable {
    struct Generator: Decodable { var state: UInt64 }
    var recordCount: Int
    var nextSequenceNumber: Int
    var battery: Int
    var generator: Generator
    var measurementsTaken: Int
    var spentFailures: [String]
    var boundUserID: Int?
    var swim: Bool
}

struct Record: Decodable {
    var sequenceNumber: Int
    var reading: Reading
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: json-foundation fleet|state FILE\n".utf8))
    exit(2)
}
let data = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
let clock = ContinuousClock()
let start = clock.now
let count: Int
let decoder = JSONDecoder()
switch arguments[1] {
case "fleet": count = try decoder.decode(Fleet.self, from: data).devices.count
case "state":
    // one JSON document a line, as the state is written
    let lines = data.split(separator: UInt8(ascii: "\n"))
    let header = try decoder.decode(StateHeader.self, from: Data(lines[0]))
    var records = 0
    for line in lines.dropFirst() {
        _ = try decoder.decode(Record.self, from: Data(line))
        records += 1
    }
    guard records == header.recordCount else { exit(1) }
    count = records
default: exit(2)
}
let elapsed = clock.now - start
FileHandle.standardError.write(Data("\(elapsed.components.attoseconds / 1_000_000_000_000) µs\n".utf8))
print(count)
