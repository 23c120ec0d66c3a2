import ArgumentParser
import Foundation
import VitalHome

/// `vitalbridge records`: the readings in the store.
struct RecordsCommand: ParsableCommand {
    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, json, csv, fhir
    }

    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "List the readings in the store, oldest first, in canonical units.",
        discussion: """
            Every value carries its unit: in the table after the value (systolic=120 mmHg), in CSV and JSON in the \
            column name (systolic_mmHg, glucose_mg_dL, weight_kg, temperature_C, spo2_percent, …). CSV is RFC 4180 \
            (CRLF line ends, one column per field, empty where a reading has no such field); JSON is an array of \
            objects with numbers as numbers. Readings are read and written one at a time, so any history streams. \
            A smartband's day (band_day) shows its totals, sleep, heart-rate summary and sports; its heart-rate \
            minutes, one row each, are listed with --heart-rate-minutes. A PO3 history record's pulse wave is the \
            wave column: its samples (0-100, 20 ms apart) separated by spaces in CSV, a list in JSON, a count in \
            the table; with --format fhir, a SampledData component of the SpO2 observation.

            What a device said beyond the values is kept: a value it could not measure (it sent NaN, NRes, +INF, \
            -INF or a reserved value) is never written as a number. Its CSV cell is empty and the last column, \
            flags, names it with the value sent (systolic=NaN) after the statuses the device reported \
            (bodyMovement, irregularPulse, …), separated by spaces: bodyMovement systolic=NaN. JSON has "flags" \
            (the statuses) and "unavailable" ({"systolic":"NaN"}) when there is something to say; the table \
            shows systolic=NaN and the statuses in words, in brackets ([body movement]).

            measured_at_utc is when a reading was taken: the time its device gave, corrected by how far the \
            device's clock was off when the hub read it in that session. Where the two differ, the table adds \
            (device clock: …) and JSON device_time_utc; --device-time adds a device_time_utc column to CSV.

            --format fhir writes a FHIR R4 Bundle for one person (--patient or --patient-id): a vital-signs \
            Observation per quantity with its LOINC code and UCUM unit, a Device per device (its Bluetooth address \
            as identifier), effectiveDateTime with the offset of --time-zone. The ids are stable: exporting again \
            gives the same ids. With --transaction, a server ingests the bundle in one POST, each entry a \
            conditional create, so posting it twice stores nothing twice. Glucose is in mg/dL (LOINC 2339-0), or \
            mmol/L (15074-8) with --unit mmol/L. Not exported: heart-rate minutes, sleep, arrhythmia flags, \
            perfusion index and body composition other than body fat.

            Examples:
              vitalbridge records
              vitalbridge records --device 004D3208D2F4 --since '2026-11-19 00:00:00' --format csv
              vitalbridge records --heart-rate-minutes --device 004D3208D310 --format csv
              vitalbridge records --format fhir --patient 'Jane Doe' --time-zone Europe/Berlin > bundle.json
              vitalbridge records --format fhir --transaction --patient-id 8f2c1 --unit mmol/L > transaction.json
              vitalbridge records delete --id 42 --reason 'cuff too loose'
            """,
        subcommands: [Delete.self])

    @OptionGroup var homeOptions: HomeOptions

    @OptionGroup var filter: ReadingFilter

    @Option(help: "table, json, csv or fhir.")
    var format: Format = .table

    @Flag(help: "List the smartbands' heart-rate minutes (one row a minute) instead of the readings.")
    var heartRateMinutes = false

    @Flag(
        help:
            "List the readings in quarantine instead: of a multi-user device's user index no person is assigned (vitalbridge people assign)."
    )
    var quarantine = false

    @Flag(help: "CSV: add device_time_utc, the time the device's clock gave where measured_at_utc corrects it.")
    var deviceTime = false

    @OptionGroup var fhir: FHIROptions

    func validate() throws {
        if quarantine && (format == .csv || format == .fhir) {
            throw ValidationError("readings in quarantine are not exported: list them as a table or JSON")
        }
        if quarantine && heartRateMinutes {
            throw ValidationError("--quarantine lists readings, not heart-rate minutes")
        }
        if format == .fhir {
            if heartRateMinutes { throw ValidationError("--heart-rate-minutes has no FHIR form") }
            if deviceTime { throw ValidationError("--device-time has no FHIR form: FHIR has the corrected time") }
            try fhir.check()
        } else if let option = fhir.given {
            throw ValidationError("\(option) applies to --format fhir only")
        }
    }

    func run() throws {
        let hub = try openHub(homeOptions.home)
        var output = ChunkedOutput()
        let layout: RecordsLayout
        switch format {
        case .fhir:
            try hub.writeFHIRBundle(try fhir.export(), device: filter.mac, since: filter.from, to: &output)
            return
        case .table: layout = .table
        case .csv: layout = .csv(deviceTime: deviceTime)
        case .json: layout = .json
        }
        let selection: RecordsSelection = heartRateMinutes ? .heartRateMinutes : quarantine ? .quarantine : .readings
        try hub.writeRecords(selection, layout: layout, device: filter.mac, since: filter.from, to: &output)
    }
}
