import Foundation
import LayeredProtocol
import TestRequirements
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

/// `vitalbridge records`: every value with its unit, CSV that a standard parser reads back, JSON with typed numbers.
@Suite("vitalbridge records")
struct RecordsTests {
    /// A home whose store holds readings of every kind.
    static func home() throws -> TestHome {
        let home = try TestHome()
        for model in [DeviceModel.bp5, .bg5, .hs4s, .po3, .am4, .thv3, .fitPro9614N] {
            _ = try home.callback(request(.addSync, model))
        }
        return home
    }

    /// The fields of `reading` under the column names `records` uses, in canonical units.
    static func expectedColumns(_ reading: Reading) -> [String: Double] {
        switch reading {
        case .bloodPressure(let bp):
            var columns = ["systolic_mmHg": bp.systolic, "diastolic_mmHg": bp.diastolic]
            if let rate = bp.heartRate { columns["heart_rate_bpm"] = Double(rate) }
            return columns
        case .glucose(let glucose): return ["glucose_mg_dL": glucose.mgPerDeciliter]
        case .weight(let weight):
            // the HS4S measures the body fat with every weight
            return [
                "weight_kg": weight.kilograms, "body_fat_percent": weight.bodyComposition?.bodyFatPercentage ?? .nan,
            ]
        case .temperature(let temperature): return ["temperature_C": temperature.celsius]
        case .oximetry(let oximetry):
            var columns = [
                "spo2_percent": Double(oximetry.oxygenSaturation), "heart_rate_bpm": Double(oximetry.heartRate),
            ]
            if let index = oximetry.perfusionIndex { columns["perfusion_index_percent"] = index }
            return columns
        case .activity(let day):
            return [
                "steps": Double(day.steps), "calories_kcal": Double(day.calories),
                "sleep_min": Double(day.sleepMinutes),
                "sleep_efficiency_percent": Double(day.sleepEfficiency),
            ]
        case .band(let day):
            var columns = [
                "steps": Double(day.steps), "calories_kcal": Double(day.calories), "distance_m": Double(day.distance),
                "sleep_min": Double(day.sleep.minutes), "sleep_efficiency_percent": Double(day.sleep.efficiency),
                "deep_sleep_min": Double(day.sleep.deep), "light_sleep_min": Double(day.sleep.light),
                "awake_min": Double(day.sleep.awake),
            ]
            if let rate = day.heartRate {
                columns["heart_rate_min_bpm"] = Double(rate.minimum)
                columns["heart_rate_avg_bpm"] = Double(rate.average)
                columns["heart_rate_max_bpm"] = Double(rate.maximum)
                columns["heart_rate_minutes"] = Double(rate.minutes)
            }
            return columns
        case .heartRate(let reading):
            return ["heart_rate_bpm": Double(reading.heartRate), "rr_intervals": Double(reading.rrIntervals.count)]
        }
    }

    @Test(
        "CSV read back by Python's csv module is the store, value for value, with the unit in each column name",
        .needs(.python3))
    func csvReadBack() throws {
        let home = try Self.home()
        let output = try home.run(["records", "--home", home.path, "--format", "csv"])
        #expect(output.status == 0 && output.stdout.hasPrefix("device,kind,measured_at_utc,systolic_mmHg,"))
        #expect(
            output.stdout.contains("\r\n") && !output.stdout.replacingOccurrences(of: "\r\n", with: "").contains("\n"))
        // an independent reader: Python's csv module, strict, as JSON
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            "import csv, json, sys; print(json.dumps(list(csv.DictReader(sys.stdin, strict=True))))",
        ]
        let input = Pipe()
        let result = Pipe()
        python.standardInput = input
        python.standardOutput = result
        try python.run()
        input.fileHandleForWriting.write(Data(output.stdout.utf8))
        try input.fileHandleForWriting.close()
        let data = result.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: String]])
        let stored = try home.store().readings.all()
        #expect(rows.count == stored.count && stored.count >= 20)
        for (row, reading) in zip(rows, stored) {
            #expect(row["device"] == reading.device.description)
            #expect(row["measured_at_utc"] == reading.reading.measuredAt.description)
            for (column, value) in Self.expectedColumns(reading.reading) {
                #expect(row[column].flatMap(Double.init) == value, "\(column) of \(row)")
            }
            let filled = Set(row.filter { !$0.value.isEmpty }.keys)
            let expected = Set(Self.expectedColumns(reading.reading).keys).union(["device", "kind", "measured_at_utc"])
            // besides them: flags, and a band day's sports, sport totals and sleep segments (text)
            #expect(expected.isSubset(of: filled) && filled.count - expected.count <= 4, "\(row)")
            if case .band(let day) = reading.reading {
                #expect(row["sport_totals"]?.isEmpty == day.sportTotals.isEmpty, "\(row)")
                #expect(row["sleep_segments"]?.isEmpty == day.sleepSegments.isEmpty, "\(row)")
            }
        }
    }

    @Test("JSON is an array of objects whose values are numbers, not strings; the table names every unit")
    func jsonAndTable() throws {
        let home = try Self.home()
        let json = try home.run(["records", "--home", home.path, "--format", "json"]).stdout
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        let stored = try home.store().readings.all()
        #expect(objects.count == stored.count)
        for (object, reading) in zip(objects, stored) {
            for (column, value) in Self.expectedColumns(reading.reading) {
                #expect((object[column] as? NSNumber)?.doubleValue == value, "\(column) of \(object)")
            }
        }
        let table = try home.run(["records", "--home", home.path]).stdout
        for unit in ["mmHg", "bpm", "mg/dL", "kg", "°C", "spo2=", "%", "kcal", "min"] {
            #expect(table.contains(unit), "\(unit)")
        }
        // an empty store gives an empty array and a table with its header only
        let empty = try TestHome()
        #expect(try empty.run(["init", "--home", empty.path]).status == 0)
        #expect(try empty.run(["records", "--home", empty.path, "--format", "json"]).stdout == "[]\n")
        #expect(try empty.run(["records", "--home", empty.path]).stdout.split(separator: "\n").count == 2)
    }

    @Test("a band day lists its sports as text; --heart-rate-minutes lists every stored minute with a value, once")
    func bandMinutes() throws {
        let home = try Self.home()
        let band = try home.store().readings.all(device: MACAddress(macOf(.fitPro9614N))!)
        #expect(band.count >= 7)
        let json = try home.run(["records", "--home", home.path, "--format", "json", "--device", macOf(.fitPro9614N)])
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        // the day's evening sport, after its noon exercise: its kind, start and end (between 17:00 and 20:45),
        // calories, steps and metres
        let sport = #"(^|; )[0-9]+ (1[7-9]|20):[0-5][0-9]-(1[7-9]|20):[0-5][0-9] [0-9]+kcal [0-9]+steps [0-9]+m$"#
        #expect(objects.contains { ($0["sports"] as? String)?.range(of: sport, options: .regularExpression) != nil })
        let minutes = try home.run(["records", "--home", home.path, "--heart-rate-minutes", "--format", "csv"])
        #expect(minutes.status == 0, "\(minutes.stderr)")
        let rows = minutes.stdout.split(separator: "\r\n").dropFirst()
        var expected = 0
        for day in band {
            if case .band(let summary) = day.reading { expected += summary.heartRate?.minutes ?? 0 }
        }
        #expect(rows.count == expected && expected > 7 * 1_000)
        #expect(rows.allSatisfy { $0.hasPrefix(macOf(.fitPro9614N) + ",heart_rate_minute,") })
        #expect(Set(rows.map { $0.split(separator: ",")[2] }).count == rows.count)
        let from = try home.run([
            "records", "--home", home.path, "--heart-rate-minutes", "--since", "2026-11-20 10:30:00", "--format", "csv",
        ])
        #expect(
            from.stdout.split(separator: "\r\n").dropFirst().allSatisfy {
                $0.split(separator: ",")[2] >= "2026-11-20 10:30:00"
            })
    }
}
