import Foundation
import TestRequirements
import Testing
import VitalCore
import VitalExports
import VitalTestSupport

/// The FHIR R4 export: every reading kind as vital-signs Observations with the LOINC codes and UCUM units of a table
/// kept here, read back by an independent implementation (fhir.resources' R4B models), stable ids, offsets,
/// transactions, and refused options.
@Suite("FHIR R4 bundles")
struct FHIRTests {
    /// LOINC code → UCUM code, as the issue and the vital-signs profiles give them; the export's own table is not
    /// consulted.
    static let ucumOfLOINC = [
        "85354-9": "mm[Hg]", "8480-6": "mm[Hg]", "8462-4": "mm[Hg]", "8867-4": "/min", "2708-6": "%",
        "8310-5": "Cel", "29463-7": "kg", "2339-0": "mg/dL", "15074-8": "mmol/L", "41982-0": "%",
        "55423-8": "{steps}", "80404-7": "ms",
    ]

    static let hub = "b4df37f1-14b0-482e-822e-6215b619a5d0"
    static let bp = MACAddress("004D3208D2F4")!
    static let other = MACAddress("004D3208D308")!

    static func time(_ hour: Int, _ minute: Int = 0, day: Int = 19) -> Timestamp {
        Timestamp(year: 2026, month: 11, day: day, hour: hour, minute: minute, second: 0)!
    }

    static let rr: [Double] = [812, 795, 830, 818, 801, 842, 809, 826, 790, 815]

    /// One reading of every kind, and what each must give: its Observations' first LOINC codes, in order.
    static let everyKind: [(reading: Reading, codes: [String])] = [
        (
            .bloodPressure(.init(systolic: 121, diastolic: 79, heartRate: 64, arrhythmia: false, measuredAt: time(7))),
            ["85354-9", "8867-4"]
        ),
        (.bloodPressure(.init(systolic: 140, diastolic: 91, measuredAt: time(8))), ["85354-9"]),
        (.glucose(.init(mgPerDeciliter: 98, measuredAt: time(9))), ["2339-0"]),
        (
            .weight(
                .init(
                    kilograms: 70.25, measuredAt: time(10),
                    bodyComposition: .init(bodyFatPercentage: 21.5, basalMetabolism: 6_500))),
            ["29463-7", "41982-0"]
        ),
        (.weight(.init(kilograms: 80.4, measuredAt: time(11))), ["29463-7"]),
        (
            .oximetry(.init(oxygenSaturation: 97, heartRate: 71, perfusionIndex: 4.2, measuredAt: time(12))),
            ["2708-6", "8867-4"]
        ),
        (.temperature(.init(celsius: 36.6, measuredAt: time(13))), ["8310-5"]),
        (
            .activity(
                .init(
                    date: CalendarDate(year: 2026, month: 11, day: 18)!, steps: 8_421, calories: 312, sleepMinutes: 400,
                    sleepEfficiency: 88)), ["55423-8"]
        ),
        (
            .band(
                .init(
                    date: CalendarDate(year: 2026, month: 11, day: 17)!, steps: 12_000, calories: 480, distance: 8_400,
                    sleep: .init(deep: 90, light: 250, awake: 40), heartRate: nil, sports: [])), ["55423-8"]
        ),
        (.heartRate(.init(heartRate: 74, rrIntervals: rr, measuredAt: time(14))), ["8867-4", "80404-7"]),
        (.heartRate(.init(heartRate: 75, rrIntervals: [810], measuredAt: time(15))), ["8867-4"]),
    ]

    /// The bundle of `readings` (device `bp` unless given), as bytes.
    static func bundle(
        _ readings: [(Reading, MACAddress)], type: FHIRBundleWriter.BundleType = .collection,
        subject: FHIRSubject = .named("Jane Doe"), hub: String = hub, glucoseUnit: VitalUnit = .mgPerDeciliter,
        devices: [FHIRDevice] = [FHIRDevice(mac: bp, model: .bp5, serialNumber: "BP5-0001", firmwareRevision: "1.2")],
        utcOffset: @escaping (Timestamp) -> Int = { _ in 3_600 }
    ) throws -> [UInt8] {
        var writer = try FHIRBundleWriter(
            type: type, subject: subject, hub: hub, glucoseUnit: glucoseUnit, devices: devices, utcOffset: utcOffset)
        var output: [UInt8] = []
        writer.begin(into: &output)
        for (reading, mac) in readings { writer.append(reading, device: mac, to: &output) }
        writer.finish(into: &output)
        return output
    }

    /// What fhir.resources read from `bundle`: its type and one summary per entry (`Tests/Oracles/fhir_bundle.py`).
    static func oracle(_ bundle: [UInt8]) throws -> (type: String, entries: [[String: Any]]) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID()).json")
        try Data(bundle).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = try runProgram(Oracles.python(), [Oracles.script("fhir_bundle.py"), file.path])
        guard result.status == 0 else {
            throw OracleRefused(description: "fhir.resources refused it: \(result.stderr)")
        }
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (document["type"] as! String, document["entries"] as! [[String: Any]])
    }

    struct OracleRefused: Error, CustomStringConvertible {
        var description: String
    }

    static func json(_ bundle: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bundle)) as? [String: Any])
    }

    static func resources(_ bundle: [UInt8], _ type: String) throws -> [[String: Any]] {
        let entries = try json(bundle)["entry"] as? [[String: Any]] ?? []
        return entries.compactMap { $0["resource"] as? [String: Any] }.filter { $0["resourceType"] as? String == type }
    }

    @Test(
        "every reading kind gives its Observations, with the LOINC codes and UCUM units of the table, values exact",
        .needs(.oracles))
    func everyKindReadBack() throws {
        let bundle = try Self.bundle(Self.everyKind.map { ($0.reading, Self.bp) })
        let (type, entries) = try Self.oracle(bundle)
        #expect(type == "collection")
        #expect(entries.map { $0["resourceType"] as! String }.prefix(2) == ["Patient", "Device"])
        let observations = entries.filter { $0["resourceType"] as? String == "Observation" }
        #expect(observations.map { ($0["codes"] as! [String])[0] } == Self.everyKind.flatMap(\.codes))
        var index = 0
        for (reading, codes) in Self.everyKind {
            for code in codes {
                let observation = observations[index]
                index += 1
                #expect(observation["status"] as? String == "final")
                #expect(observation["category"] as? [String] == ["vital-signs"])
                let quantities: [(code: String, value: [String: String])] =
                    if let value = observation["value"] as? [String: String] {
                        [(code, value)]
                    } else {
                        (observation["components"] as! [[Any]]).map { ($0[0] as! String, $0[1] as! [String: String]) }
                    }
                for (quantityCode, quantity) in quantities {
                    #expect(quantity["system"] == "http://unitsofmeasure.org")
                    #expect(quantity["code"] == Self.ucumOfLOINC[quantityCode], "\(quantityCode)")
                }
                let values = quantities.map { Double($0.value["value"]!)! }
                switch (reading, code) {
                case (.bloodPressure(let bp), "85354-9"):
                    #expect(quantities.map(\.code) == ["8480-6", "8462-4"] && values == [bp.systolic, bp.diastolic])
                case (.bloodPressure(let bp), "8867-4"): #expect(values == [Double(bp.heartRate!)])
                case (.glucose(let glucose), "2339-0"): #expect(values == [glucose.mgPerDeciliter])
                case (.weight(let weight), "29463-7"): #expect(values == [weight.kilograms])
                case (.weight(let weight), "41982-0"): #expect(values == [weight.bodyComposition!.bodyFatPercentage])
                case (.oximetry(let oximetry), "2708-6"):
                    #expect(values == [Double(oximetry.oxygenSaturation)])
                    #expect(observation["codes"] as? [String] == ["2708-6", "59408-5"])
                case (.oximetry(let oximetry), "8867-4"): #expect(values == [Double(oximetry.heartRate)])
                case (.temperature(let temperature), "8310-5"): #expect(values == [temperature.celsius])
                case (.activity(let day), "55423-8"):
                    #expect(values == [Double(day.steps)] && observation["effective"] as? String == "2026-11-18")
                case (.band(let day), "55423-8"):
                    #expect(values == [Double(day.steps)] && observation["effective"] as? String == "2026-11-17")
                case (.heartRate(let recording), "8867-4"): #expect(values == [Double(recording.heartRate)])
                case (.heartRate(let recording), "80404-7"):
                    let sdnn = try #require(HRVFigures(rr: recording.rrIntervals).sdnn)
                    #expect(
                        abs(values[0] - sdnn) <= 0.05
                            && quantities[0].value["value"]!.split(separator: ".").last!.count == 1)
                default: Issue.record("unexpected \(code) for \(reading)")
                }
            }
        }
        // the vital-signs profiles the kinds of the vital-signs panel claim
        let profiles = try Self.resources(bundle, "Observation").map {
            (($0["meta"] as! [String: Any])["profile"] as? [String])?.first
        }
        #expect(profiles.compactMap { $0 }.count == 10)
        #expect(profiles.first == "http://hl7.org/fhir/StructureDefinition/bp")
    }

    @Test(
        "glucose in mmol/L is LOINC 15074-8, rounded as a callback rounds it, with the same identifier as in mg/dL",
        .needs(.oracles))
    func molarGlucose() throws {
        let reading = Reading.glucose(.init(mgPerDeciliter: 98, measuredAt: Self.time(9)))
        let molar = try Self.oracle(Self.bundle([(reading, Self.bp)], glucoseUnit: .mmolPerLiter)).entries.last!
        #expect(molar["codes"] as? [String] == ["15074-8"])
        let value = try #require(molar["value"] as? [String: String])
        #expect(
            value["code"] == "mmol/L"
                && value["value"] == VitalUnit.mmolPerLiter.resultValue(canonical: 98)!.description)
        let mass = try Self.oracle(Self.bundle([(reading, Self.bp)])).entries.last!
        #expect(molar["identifiers"] as! [[String]] == mass["identifiers"] as! [[String]])
    }

    @Test(
        "effectiveDateTime is the reading's instant with the offset at that time", .needs(.oracles),
        arguments: [(3_600, "+01:00"), (-18_000, "-05:00"), (19_800, "+05:30"), (0, "+00:00"), (-12_645, "-03:30")])
    func offsets(offset: Int, suffix: String) throws {
        let time = Self.time(8, 30)
        let reading = Reading.temperature(.init(celsius: 36.6, measuredAt: time))
        let observation = try Self.oracle(Self.bundle([(reading, Self.bp)], utcOffset: { _ in offset })).entries.last!
        let effective = try #require(observation["effective"] as? String)
        #expect(effective.hasSuffix(suffix), "\(effective)")
        // the same instant: an offset in seconds (-03:30:45) is written in whole minutes, the local time with it
        let parsed = try #require(ISO8601DateFormatter().date(from: effective))
        #expect(parsed == time.date)
    }

    @Test("ids are stable for a hub and scoped to it; a second reading in the same second gets -2")
    func stableIDs() throws {
        let readings = Self.everyKind.map { ($0.reading, Self.bp) }
        #expect(try Self.bundle(readings) == Self.bundle(readings))
        let otherHub = "0f0e0d0c-0b0a-4908-8706-050403020100"
        let mine = try Self.resources(Self.bundle(readings), "Observation").map { $0["id"] as! String }
        let theirs = try Self.resources(Self.bundle(readings, hub: otherHub), "Observation").map { $0["id"] as! String }
        #expect(Set(mine).count == mine.count && Set(mine).isDisjoint(with: theirs))
        // a patient is the same for a name on a hub, and another on another hub or with another name
        func patient(_ name: String, hub: String = Self.hub) throws -> String {
            try Self.resources(Self.bundle([], subject: .named(name), hub: hub), "Patient")[0]["id"] as! String
        }
        #expect(try patient("Jane Doe") == patient("Jane Doe"))
        #expect(try patient("Jane Doe") != patient("Jane Doe", hub: otherHub))
        #expect(try patient("Jane Doe") != patient("John Doe"))
        // a device is the same device on every hub
        let device = { (hub: String) in
            try Self.resources(Self.bundle(readings, hub: hub), "Device")[0]["id"] as! String
        }
        #expect(try device(Self.hub) == device(otherHub))
        // two readings of one device, kind and second (different values), and the same time on another device
        let twins: [(Reading, MACAddress)] = [
            (.glucose(.init(mgPerDeciliter: 98, measuredAt: Self.time(9))), Self.bp),
            (.glucose(.init(mgPerDeciliter: 99, measuredAt: Self.time(9))), Self.other),
            (.glucose(.init(mgPerDeciliter: 101, measuredAt: Self.time(9))), Self.bp),
            (.glucose(.init(mgPerDeciliter: 97, measuredAt: Self.time(10))), Self.bp),
        ]
        let identifiers = try Self.resources(Self.bundle(twins), "Observation").map {
            (($0["identifier"] as! [[String: String]])[0]["value"])!
        }
        let seconds = Self.time(9).secondsSince1970
        #expect(
            identifiers == [
                "004D3208D2F4-glucose-\(seconds)-glucose", "004D3208D308-glucose-\(seconds)-glucose",
                "004D3208D2F4-glucose-\(seconds)-2-glucose", "004D3208D2F4-glucose-\(seconds + 3_600)-glucose",
            ])
    }

    @Test(
        "ids are version-5 UUIDs that Python's uuid.uuid5 computes alike, lowercase, and the fullUrls are them",
        .needs(.python3))
    func uuidsAgreeWithPython() throws {
        let bundle = try Self.bundle([(Self.everyKind[0].reading, Self.bp)])
        let entries = try Self.json(bundle)["entry"] as! [[String: Any]]
        let observation = entries[2]["resource"] as! [String: Any]
        let identifier = (observation["identifier"] as! [[String: String]])[0]["value"]!
        let python = try runProgram(
            "/usr/bin/env",
            [
                "python3", "-c",
                "import sys, uuid; print(uuid.uuid5(uuid.UUID(sys.argv[1]), 'Observation/' + sys.argv[2]))",
                Self.hub, identifier,
            ])
        #expect(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == observation["id"] as? String)
        for entry in entries {
            let id = (entry["resource"] as! [String: Any])["id"] as! String
            #expect(entry["fullUrl"] as? String == "urn:uuid:" + id)
            #expect(id == id.lowercased() && UUID(uuidString: id) != nil)
        }
    }

    @Test(
        "a transaction: every entry a conditional create on its identifier, no ids, every reference in the bundle",
        .needs(.oracles))
    func transaction() throws {
        let readings = Self.everyKind.map { ($0.reading, Self.bp) } + [(Self.everyKind[2].reading, Self.other)]
        let bundle = try Self.bundle(readings, type: .transaction)
        let (type, entries) = try Self.oracle(bundle)
        #expect(type == "transaction")
        let fullUrls = Set(entries.map { $0["fullUrl"] as! String })
        #expect(fullUrls.count == entries.count)
        #expect(entries.filter { $0["resourceType"] as? String == "Device" }.count == 2)
        for entry in entries {
            let resourceType = entry["resourceType"] as! String
            #expect(entry["id"] is NSNull)
            let identifier = (entry["identifiers"] as! [[String]])[0]
            #expect(
                entry["request"] as? [String] == [
                    "POST", resourceType, "identifier=\(identifier[0])|\(identifier[1])",
                ])
            if resourceType == "Observation" {
                #expect(fullUrls.contains(entry["subject"] as! String))
                #expect(fullUrls.contains(entry["device"] as! String))
            }
            #expect(entry["source"] as? String == "urn:uuid:" + Self.hub)
        }
        // the same readings in a collection: the same fullUrls, and each resource's id is its fullUrl's UUID
        let collection = try Self.oracle(Self.bundle(readings)).entries
        #expect(collection.map { $0["fullUrl"] as! String } == entries.map { $0["fullUrl"] as! String })
        #expect(collection.allSatisfy { "urn:uuid:" + ($0["id"] as! String) == $0["fullUrl"] as! String })
    }

    @Test("a patient on the server is referenced as Patient/<id>, and the bundle holds no Patient", .needs(.oracles))
    func existingPatient() throws {
        let bundle = try Self.bundle(
            [(Self.everyKind[6].reading, Self.bp)], type: .transaction, subject: .existing(id: "pat-42.a"))
        let entries = try Self.oracle(bundle).entries
        #expect(entries.map { $0["resourceType"] as! String } == ["Device", "Observation"])
        #expect(entries[1]["subject"] as? String == "Patient/pat-42.a")
        // no readings and no patient: a bundle without entries, which FHIR JSON writes without `entry`
        let empty = try Self.bundle([], subject: .existing(id: "p1"))
        #expect(String(decoding: empty, as: UTF8.self) == "{\"resourceType\":\"Bundle\",\"type\":\"collection\"}\n")
        #expect(try Self.oracle(empty).entries.isEmpty)
    }

    @Test(
        "a device's hostile text is written as valid FHIR: control characters dropped, an empty serial left out",
        .needs(.oracles))
    func hostileDeviceText() throws {
        let devices = [
            FHIRDevice(mac: Self.bp, model: .bp5, serialNumber: "\u{1}\u{7}\n", firmwareRevision: "1.0\"},{\"x\u{0}"),
            FHIRDevice(mac: Self.other, model: nil),
        ]
        let readings = [(Self.everyKind[2].reading, Self.bp), (Self.everyKind[2].reading, Self.other)]
        let bundle = try Self.bundle(readings, devices: devices)
        _ = try Self.oracle(bundle)
        let resources = try Self.resources(bundle, "Device")
        #expect(resources[0]["serialNumber"] == nil)
        #expect((resources[0]["version"] as? [[String: String]])?.first?["value"] == "1.0\"},{\"x")
        #expect(resources[1]["modelNumber"] == nil)
        let identifier = (resources[0]["identifier"] as! [[String: Any]])[0]
        #expect(identifier["system"] as? String == "http://hl7.org/fhir/sid/eui-48/bluetooth")
        #expect(identifier["value"] as? String == "00-4D-32-08-D2-F4")
    }

    @Test("refused, each naming what is wrong: a hub that is no UUID, glucose in kPa, a bad patient name or id")
    func refused() throws {
        func message(
            subject: FHIRSubject = .named("Jane"), hub: String = Self.hub, unit: VitalUnit = .mgPerDeciliter
        ) -> String? {
            do {
                _ = try FHIRBundleWriter(
                    type: .collection, subject: subject, hub: hub, glucoseUnit: unit, devices: [], utcOffset: { _ in 0 }
                )
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message(hub: "not-a-uuid")?.contains("not a UUID") == true)
        #expect(message(hub: Self.hub + "0")?.contains("not a UUID") == true)
        #expect(message(unit: .kPa) == "FHIR glucose is in mg/dL or mmol/L, not kPa")
        #expect(message(subject: .named(" \t")) == "the patient's name is empty")
        #expect(message(subject: .named("Jane\u{0}Doe")) == "the patient's name has control characters")
        #expect(message(subject: .named("Jane\nDoe")) == "the patient's name has control characters")
        for id in ["", String(repeating: "a", count: 65), "a b", "a/b", "Patient/1", "é"] {
            #expect(message(subject: .existing(id: id))?.contains("is not a FHIR id") == true, "\(id)")
        }
        #expect(message(subject: .existing(id: String(repeating: "a", count: 64))) == nil)
        #expect(message(subject: .named("Zoë O'Brien-Łukasz")) == nil)
    }
}
