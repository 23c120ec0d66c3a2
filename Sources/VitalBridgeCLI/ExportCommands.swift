import ArgumentParser
import Foundation
import LayeredProtocol
import VitalExports
import VitalStore

extension VitalUnit {
    /// The unit a user names on the command line: its symbol in any case (`mmol/L`, `mmhg`, `lb`), and `C` or `F`
    /// for the degrees.
    init?(userText text: String) {
        let lowered = text.lowercased()
        let aliases: [String: VitalUnit] = ["c": .celsius, "f": .fahrenheit, "mile": .mile, "miles": .mile]
        if let unit = aliases[lowered] {
            self = unit
            return
        }
        guard let unit = VitalUnit.allCases.first(where: { $0.symbol.lowercased() == lowered }) else { return nil }
        self = unit
    }

    /// What `--unit` accepts, for its error messages.
    static var userTexts: String { allCases.map(\.symbol).joined(separator: ", ") }
}

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

    /// Writes the bundle of the readings of `store` (of one device, from a time on) to standard output, a reading
    /// at a time.
    func export(_ store: VitalStore, device: MACAddress?, since: LayeredTimestamp?) throws {
        let zone = try VitalBridgeCLI.timeZone(named: timeZone)
        let devices = try store.devices().map {
            FHIRDevice(
                mac: $0.mac, model: $0.model, serialNumber: $0.serialNumber, firmwareRevision: $0.firmwareRevision)
        }
        var writer = try FHIRBundleWriter(
            type: transaction ? .transaction : .collection, subject: subject(), hub: store.hubID(),
            glucoseUnit: glucoseUnit(), devices: devices, utcOffset: { zone.secondsFromGMT(for: $0.date) })
        var output = StreamingOutput()
        output.append { writer.begin(into: &$0) }
        try store.forEachReading(device: device, since: since) { stored in
            output.append { writer.append(stored.reading, device: stored.device, to: &$0) }
        }
        output.append { writer.finish(into: &$0) }
        output.flush()
    }
}
