import ArgumentParser
import Foundation
import VitalCore
import VitalExports
import VitalHome

/// The time zone `name` names (an IANA name such as `Europe/Berlin`, or `UTC`), or the system's (`TZ`) if `nil`.
func timeZone(named name: String?) throws(ValidationError) -> TimeZone {
    guard let name else { return TimeZone.current }
    guard let zone = TimeZone(identifier: name) else {
        throw ValidationError("--time-zone \(name.debugDescription) is not a time zone (Europe/Berlin, UTC)")
    }
    return zone
}

/// The options of `records --format fhir`.
struct FHIROptions: ParsableArguments {
    @Option(help: "With --format fhir: the person the readings are about, by name; the bundle holds a Patient.")
    var patient: String?

    @Option(
        name: .customLong("patient-id"),
        help: "With --format fhir: the id of a Patient already on the FHIR server, instead of --patient.")
    var patientID: String?

    @Flag(help: "With --format fhir: a transaction of conditional creates, instead of a collection.")
    var transaction = false

    @Option(help: "With --format fhir: glucose in mg/dL (the default) or mmol/L.")
    var unit: String?

    @Option(
        help: "With --format fhir: the time zone of the times' offsets (Europe/Berlin, UTC); the system's if not set.")
    var timeZone: String?

    /// The first FHIR option given, for the error of a format that takes none.
    var given: String? {
        [
            patient.map { _ in "--patient" }, patientID.map { _ in "--patient-id" },
            transaction ? "--transaction" : nil, unit.map { _ in "--unit" }, timeZone.map { _ in "--time-zone" },
        ].compactMap { $0 }.first
    }

    /// Throws a usage error for options `--format fhir` cannot use. (Not `validate()`: ArgumentParser would run it
    /// for every format.)
    func check() throws {
        _ = try subject()
        _ = try glucoseUnit()
        _ = try VitalBridgeCLI.timeZone(named: timeZone)
    }

    func subject() throws -> FHIRSubject {
        let subject: FHIRSubject
        switch (patient, patientID) {
        case (let name?, nil): subject = .named(name)
        case (nil, let id?): subject = .existing(id: id)
        case (nil, nil): throw ValidationError("--format fhir needs the person: --patient NAME or --patient-id ID")
        case (_?, _?): throw ValidationError("give --patient or --patient-id, not both")
        }
        do {
            try subject.check()
        } catch {
            throw ValidationError("\(patient != nil ? "--patient" : "--patient-id"): \(error)")
        }
        return subject
    }

    func glucoseUnit() throws -> VitalUnit {
        guard let unit else { return .mgPerDeciliter }
        guard let parsed = VitalUnit(userText: unit), [.mgPerDeciliter, .mmolPerLiter].contains(parsed) else {
            throw ValidationError(
                "--unit \(unit.debugDescription): FHIR glucose is in mg/dL or mmol/L; the other quantities have the "
                    + "units the vital-signs profiles require")
        }
        return parsed
    }

    /// The export these options ask for.
    func export() throws -> Hub.FHIRExport {
        Hub.FHIRExport(
            type: transaction ? .transaction : .collection, subject: try subject(), glucoseUnit: try glucoseUnit(),
            timeZone: try VitalBridgeCLI.timeZone(named: timeZone))
    }
}

/// `vitalbridge report`: the HTML report.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Write a report a person reads: one HTML page with a chart per quantity and the latest readings.",
        discussion: """
            The page is self-contained: inline SVG charts and style, no script, no network (its Content-Security-Policy \
            forbids loading anything), readable offline in any browser. It has the latest reading of each quantity, \
            then charts over time: blood pressure as diastolic-to-systolic lines over the 130/80 and 140/90 \
            thresholds, glucose over the 70–180 mg/dL range, weight with its trend, SpO2, temperature, daily steps \
            and sleep. Under each chart is its data as CSV, also as a download link. A chart of more than 1,500 \
            readings shows one line a day, from the day's lowest to its highest value. A PO3 record's pulse wave is \
            left out (records and --format fhir carry it).

            Values are in the units of --unit (any of mmHg, kPa, mg/dL, mmol/L, kg, lb, st, C, F; one per quantity), \
            rounded as callbacks round them; times are local, in --time-zone or the system's. The file is written \
            with mode 0600 (it holds health data), replacing --out atomically (a run killed before the rename leaves the \
            previous report whole, and the next run removes its temporary file); --out - writes to standard output.

            Examples:
              vitalbridge report --out report.html
              vitalbridge report --since '2026-01-01 00:00:00' --unit mmol/L --unit lb --out report.html
              vitalbridge report --device 004D3208D2F4 --time-zone Europe/Berlin --out bp.html
            """)

    @OptionGroup var homeOptions: HomeOptions

    @OptionGroup var filter: ReadingFilter

    @Option(help: "The file to write, or - for standard output.")
    var out: String

    @Option(help: "A unit to show its quantity in (mmol/L, kPa, lb, st, F…); repeat for several.")
    var unit: [String] = []

    @Option(help: "The time zone of the times shown (Europe/Berlin, UTC); the system's if not set.")
    var timeZone: String?

    @Option(help: "The page's title.")
    var title = "Health report"

    func validate() throws {
        guard !out.isEmpty else { throw ValidationError("--out must name a file, or - for standard output") }
        _ = try units()
        _ = try VitalBridgeCLI.timeZone(named: timeZone)
    }

    func units() throws -> ReportUnits {
        do {
            return try ReportUnits(userTexts: unit)
        } catch {
            throw ValidationError(error.message)
        }
    }

    func run() throws {
        let hub = try openHub(homeOptions.home)
        let page = try hub.report(
            units: try units(), timeZone: try VitalBridgeCLI.timeZone(named: timeZone), device: filter.mac,
            since: filter.from)
        if out == "-" {
            guard page.write(title: title, to: 1) else { throw CommandError(ending: .refused) }
            return
        }
        do {
            try page.write(title: title, toFile: out)
        } catch {
            throw CommandError("cannot write the report: \(error)")
        }
        printError("wrote \(out): \(page.report.readings) readings")
    }
}
