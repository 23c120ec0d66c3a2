import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// `vitalbridge records --format fhir` through the real process: read back by fhir.resources and compared with the
/// store, value for value.
@Suite("vitalbridge records --format fhir")
struct FHIRExportTests {
    /// A home holding readings of every kind, a heart-rate sensor's recording with RR intervals included.
    static func home() throws -> TestHome {
        let home = try RecordsTests.home()
        _ = try home.callback(request(.addSync, .heartRateSensor))
        _ = try home.callback(request(.addMeasure, .heartRateSensor))
        return home
    }

    /// What fhir.resources read from the bundle `output` (`Tests/Oracles/fhir_bundle.py`); records an issue and
    /// throws if it refused it.
    static func oracle(_ output: String) throws -> [[String: Any]] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID()).json")
        try Data(output.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runProgram(Oracles.python(), [Oracles.script("fhir_bundle.py"), file.path])
        try #require(result.status == 0, "fhir.resources refused the bundle: \(result.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return try #require(document["entries"] as? [[String: Any]])
    }

    /// The export of `home` with `options`, which must succeed.
    static func export(_ home: TestHome, _ options: [String], environment: [String: String] = [:]) throws -> String {
        let output = try home.run(
            ["records", "--home", home.path, "--format", "fhir"] + options, environment: environment)
        try #require(output.status == 0, "\(output.stderr)")
        return output.stdout
    }

    /// The values an Observation of `reading` with first LOINC code `code` must carry, in canonical units.
    static func expectedValues(_ reading: Reading, _ code: String) -> [Double]? {
        switch (reading, code) {
        case (.bloodPressure(let bp), "85354-9"): [bp.systolic, bp.diastolic]
        case (.bloodPressure(let bp), "8867-4"): bp.heartRate.map { [Double($0)] }
        case (.glucose(let glucose), "2339-0"): [glucose.mgPerDeciliter]
        case (.weight(let weight), "29463-7"): [weight.kilograms]
        case (.weight(let weight), "41982-0"): weight.bodyComposition.map { [$0.bodyFatPercentage] }
        case (.oximetry(let oximetry), "2708-6"): [Double(oximetry.oxygenSaturation)]
        case (.oximetry(let oximetry), "8867-4"): [Double(oximetry.heartRate)]
        case (.temperature(let temperature), "8310-5"): [temperature.celsius]
        case (.activity(let day), "55423-8"): [Double(day.steps)]
        case (.band(let day), "55423-8"): [Double(day.steps)]
        case (.heartRate(let recording), "8867-4"): [Double(recording.heartRate)]
        case (.heartRate(let recording), "80404-7"):
            HRVFigures(rr: recording.rrIntervals).sdnn.map { [($0 * 10).rounded() / 10] }
        default: nil
        }
    }

    /// How many Observations `reading` must give.
    static func observationCount(_ reading: Reading) -> Int {
        let codes = ["85354-9", "8867-4", "2339-0", "29463-7", "41982-0", "2708-6", "8310-5", "55423-8", "80404-7"]
        return codes.filter { expectedValues(reading, $0) != nil }.count
    }

    @Test(
        "every stored reading is in the bundle, value for value, with its device; exporting again gives the same bytes",
        .needs(.oracles))
    func everyReading() throws {
        let home = try Self.home()
        let bundle = try Self.export(home, ["--patient", "Jane Doe", "--time-zone", "UTC"])
        let entries = try Self.oracle(bundle)
        let stored = try home.store().readings.all()
        #expect(stored.contains { if case .heartRate(let r) = $0.reading { r.rrIntervals.count >= 2 } else { false } })
        let observations = entries.filter { $0["resourceType"] as? String == "Observation" }
        #expect(observations.count == stored.map { Self.observationCount($0.reading) }.reduce(0, +))
        let devices = Dictionary(
            uniqueKeysWithValues: entries.filter { $0["resourceType"] as? String == "Device" }.map {
                ($0["fullUrl"] as! String, ($0["identifiers"] as! [[String]])[0][1])
            })
        #expect(Set(devices.values) == Set(stored.map { $0.device.description.chunked(2).joined(separator: "-") }))
        // each Observation's identifier names its reading: device, kind, time
        var byKey: [String: Reading] = [:]
        for reading in stored {
            byKey["\(reading.device)-\(reading.reading.kind)-\(reading.reading.measuredAt.secondsSince1970)"] =
                reading.reading
        }
        for observation in observations {
            let identifier = (observation["identifiers"] as! [[String]])[0][1]
            let key = identifier.split(separator: "-").prefix(3).joined(separator: "-")
            let reading = try #require(byKey[key], "\(identifier)")
            let code = (observation["codes"] as! [String])[0]
            let quantities =
                (observation["value"] as? [String: String]).map { [$0] }
                ?? (observation["components"] as! [[Any]]).map { $0[1] as! [String: String] }
            #expect(quantities.map { Double($0["value"]!)! } == Self.expectedValues(reading, code), "\(identifier)")
            #expect(
                devices[observation["device"] as! String] == String(key.prefix(12)).chunked(2).joined(separator: "-"))
            if case .band = reading {
            } else if case .activity = reading {
            } else {
                #expect(observation["effective"] as? String == reading.measuredAt.isoUTC, "\(identifier)")
            }
        }
        #expect(try Self.export(home, ["--patient", "Jane Doe", "--time-zone", "UTC"]) == bundle)
        // the hub is named in every resource, and another home is another hub
        let hub = try #require(entries.first?["source"] as? String)
        #expect(hub.hasPrefix("urn:uuid:") && entries.allSatisfy { $0["source"] as? String == hub })
        let other = try TestHome()
        _ = try other.callback(request(.addSync, .bp5))
        #expect(try Self.oracle(Self.export(other, ["--patient", "Jane Doe"])).first?["source"] as? String != hub)
    }

    @Test("--transaction, --device, --since and --unit mmol/L select and shape the bundle", .needs(.oracles))
    func options() throws {
        let home = try Self.home()
        let glucose = try home.store().readings.all(device: MACAddress(macOf(.bg5))!)
        try #require(glucose.count >= 2)
        let since = glucose[1].reading.measuredAt
        let entries = try Self.oracle(
            Self.export(
                home,
                [
                    "--transaction", "--patient-id", "p-1", "--device", macOf(.bg5), "--since", since.description,
                    "--unit", "mmol/L",
                ]))
        #expect(
            entries.map { $0["resourceType"] as! String } == ["Device"]
                + Array(repeating: "Observation", count: glucose.count - 1))
        for (entry, reading) in zip(entries.dropFirst(), glucose.dropFirst()) {
            #expect((entry["request"] as? [String])?.first == "POST" && entry["subject"] as? String == "Patient/p-1")
            #expect(entry["codes"] as? [String] == ["15074-8"])
            guard case .glucose(let value) = reading.reading else { continue }
            let expected = VitalUnit.mmolPerLiter.resultValue(canonical: value.mgPerDeciliter)!.description
            #expect((entry["value"] as? [String: String])?["value"] == expected)
        }
    }

    @Test(
        "offsets come from --time-zone, else from TZ, with the rules in force at each reading's time", .needs(.oracles))
    func timeZones() throws {
        let home = try Self.home()
        let reading = try #require(try home.store().readings.all(device: MACAddress(macOf(.bp5))!).first)
        let options = ["--patient", "A", "--device", macOf(.bp5)]
        func effective(_ extra: [String], environment: [String: String] = [:]) throws -> String {
            let entries = try Self.oracle(Self.export(home, options + extra, environment: environment))
            return try #require(
                entries.first { $0["resourceType"] as? String == "Observation" }?["effective"] as? String)
        }
        let kolkata = try effective(["--time-zone", "Asia/Kolkata"])
        #expect(
            kolkata.hasSuffix("+05:30") && ISO8601DateFormatter().date(from: kolkata) == reading.reading.measuredAt.date
        )
        // November in New York is standard time; July is daylight time (the offset at the reading's own time)
        let newYork = try effective([], environment: ["TZ": "America/New_York"])
        let zone = TimeZone(identifier: "America/New_York")!
        let expectedOffset = zone.secondsFromGMT(for: reading.reading.measuredAt.date) / 3_600
        #expect(newYork.hasSuffix(String(format: "-%02d:00", -expectedOffset)))
        #expect(ISO8601DateFormatter().date(from: newYork) == reading.reading.measuredAt.date)
        try #require(reading.reading.measuredAt.description.hasPrefix("2026-11-"))
        #expect(newYork.hasSuffix("-05:00"))
        let july = Timestamp(year: 2026, month: 7, day: 19, hour: 12, minute: 0, second: 0)!
        _ = try home.store().readings.store(
            [.bloodPressure(.init(systolic: 118, diastolic: 76, measuredAt: july))], device: MACAddress(macOf(.bp5))!)
        let summer = try Self.oracle(Self.export(home, options, environment: ["TZ": "America/New_York"]))
        let observation = try #require(
            summer.first { entry in
                (entry["identifiers"] as? [[String]])?.first?[1].contains("-\(july.secondsSince1970)-") == true
            })
        #expect(observation["effective"] as? String == "2026-07-19T08:00:00-04:00")
    }

    @Test("bad options are refused with exit 2 and a line naming the option; the store is untouched")
    func refused() throws {
        let home = try Self.home()
        let before = try home.store().readings.all()
        let cases: [([String], String)] = [
            (["--format", "fhir"], "--format fhir needs the person: --patient NAME or --patient-id ID"),
            (["--format", "fhir", "--patient", "A", "--patient-id", "b"], "give --patient or --patient-id, not both"),
            (["--format", "fhir", "--patient", ""], "--patient: the patient's name is empty"),
            (["--format", "fhir", "--patient", "A\u{1B}[2J"], "--patient: the patient's name has control characters"),
            (["--format", "fhir", "--patient-id", "a/b"], "--patient-id: the patient id \"a/b\" is not a FHIR id"),
            (
                ["--format", "fhir", "--patient", "A", "--unit", "kPa"],
                "--unit \"kPa\": FHIR glucose is in mg/dL or mmol/L"
            ),
            (["--format", "fhir", "--patient", "A", "--unit", "furlongs"], "--unit \"furlongs\": FHIR glucose"),
            (
                ["--format", "fhir", "--patient", "A", "--time-zone", "Mars/Olympus"],
                "--time-zone \"Mars/Olympus\" is not a time zone"
            ),
            (["--format", "fhir", "--patient", "A", "--heart-rate-minutes"], "--heart-rate-minutes has no FHIR form"),
            (["--format", "csv", "--patient", "A"], "--patient applies to --format fhir only"),
            (["--transaction"], "--transaction applies to --format fhir only"),
            (["--format", "json", "--time-zone", "UTC"], "--time-zone applies to --format fhir only"),
        ]
        for (arguments, message) in cases {
            let output = try home.run(["records", "--home", home.path] + arguments)
            #expect(
                output.status == 2 && output.stderr.contains(message) && output.stdout.isEmpty,
                "\(arguments): \(output.stderr)")
        }
        #expect(try home.store().readings.all() == before)
        // a home that does not exist is not created
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("no-home-\(UUID())").path
        let output = try vitalbridge(["records", "--home", missing, "--format", "fhir", "--patient", "A"])
        #expect(output.status == 1 && !FileManager.default.fileExists(atPath: missing))
    }
}

extension String {
    /// The string cut into pieces of `size` characters.
    fileprivate func chunked(_ size: Int) -> [String] {
        let characters = Array(self)
        return stride(from: 0, to: characters.count, by: size).map {
            String(characters[$0..<min($0 + size, characters.count)])
        }
    }
}

extension Timestamp {
    /// The time as Python's `isoformat` writes an aware UTC time: `2026-11-19T08:30:00+00:00`.
    fileprivate var isoUTC: String {
        let text = description
        return text.prefix(10) + "T" + text.suffix(8) + "+00:00"
    }
}
