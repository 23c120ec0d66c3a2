import VitalCore
import VitalDevices

/// A reading as a fleet file (and the world's saved state) writes it: its time, and its values keyed by the fleet
/// keys of the reading kinds' fields (`ReadingField.fleetKey` in VitalCore). Which keys apply depends on the family:
///
/// - blood pressure: `systolic`, `diastolic` (mmHg), `pulse` (bpm), `arrhythmia`;
/// - glucose: `glucose` (mg/dL); scale: `weight` (kg), and `bodyFat` (%) from a body composition scale (which
///   reports its body fat unsuccessful without it); thermometer: `temperature` (°C);
/// - pulse oximeter: `spo2` (%), `pulse` (bpm), `pi` (%);
/// - activity monitor: `date` (`yyyy-MM-dd`), `steps`, `calories`, `sleepMinutes`, `sleepEfficiency`,
///   `swimMinutes`, `swimCalories`;
///
/// and `measuredAt` (`yyyy-MM-dd HH:mm:ss`, UTC) for all but the activity days. Values are rounded to what the
/// device can send: whole mmHg, mg/dL, bpm and %; 0.005 kg; 0.1 °C; 0.1 % for the perfusion index and body fat.
///
/// What the device says beyond the values, sent in its bytes (see `ScriptedAnnotations.swift` for what each
/// family can carry):
///
/// - `status`: the names of the statuses it reports (`ReadingStatus` in VitalCore): a blood pressure monitor's
///   Measurement Status (`bodyMovement`, `cuffTooLoose`, `irregularPulse`, `pulseRateTooHigh` or `pulseRateTooLow`,
///   `improperPosition`; `irregularPulse` is the arrhythmia flag), a glucose meter's Sensor Status Annunciation,
///   a thermometer's site (one of `armpit` … `tympanum`), a pulse oximeter's measurement and device and sensor
///   statuses and `deviceClockNotSet`, a scale's `measurementUnsuccessful` (with a field that is `"NaN"`);
/// - a field's value `"NaN"`, `"NRes"`, `"+INF"`, `"-INF"` or `"reserved"`: the IEEE 11073 special value the device
///   sends instead of a number, in an SFLOAT or FLOAT field; a scale's weight and body fat may only be `"NaN"`
///   (65535, "measurement unsuccessful", which adds the status `measurementUnsuccessful`);
/// - `user`: the user ID (0–255, 255 the unknown user) of a blood pressure monitor or a scale.
///
/// ```swift
/// let scripted = SimulatedReading(
///     measuredAt: "2026-11-19 07:00:00", ["systolic": .number(121), "diastolic": .number(79)])
/// try scripted.reading(for: .bloodPressure, at: "records.list[0]")   // a blood pressure of 121/79 mmHg
/// ```
public struct SimulatedReading: Hashable, Sendable {
    /// When a timed reading was taken: `yyyy-MM-dd HH:mm:ss` (UTC).
    public var measuredAt: String?
    /// An activity day's date: `yyyy-MM-dd`.
    public var date: String?
    /// The value of each fleet key, in the order of ``keys`` (an array, not a dictionary: a saved state of 65,000
    /// records makes as many readings on every sync).
    var slots: [FieldValue?]
    /// The special value the device sends instead of a number, by slot (the slot's value is then `nil`).
    var specials: [Int: SpecialValue] = [:]
    /// The statuses the device reports with the reading (`status`).
    public var status: ReadingStatus = []
    /// The user ID the device gives the reading (`user`), 255 the unknown user.
    public var user: UInt8?

    /// A reading with `values` by fleet key (see ``subscript(_:)``).
    public init(measuredAt: String? = nil, date: String? = nil, _ values: [String: FieldValue] = [:]) {
        self.measuredAt = measuredAt
        self.date = date
        slots = Array(repeating: nil, count: Self.keys.count)
        for (key, value) in values { self[key] = value }
    }

    /// The values by fleet key, as the fleet file reads them: `.number` for a key any number may give (a measured
    /// quantity, which the device rounds), `.integer` for one only a whole number may (a count), `.flag` for
    /// `true` or `false`.
    public var values: [String: FieldValue] {
        var values: [String: FieldValue] = [:]
        for (slot, value) in slots.enumerated() { values[Self.keys[slot]] = value }
        return values
    }

    /// The value of the fleet key `key`, `nil` when the reading has none. A whole number set on a key the fleet
    /// file reads as any number (`pulse`) is kept as that number.
    ///
    /// - Precondition: `key` is a fleet key, and a value set is of its kind (a number, a whole number or a flag).
    public subscript(_ key: String) -> FieldValue? {
        get { Self.slotOfKey[key].flatMap { slots[$0] } }
        set {
            guard let slot = Self.slotOfKey[key] else { preconditionFailure("\(key) is not a fleet key") }
            slots[slot] = newValue.map { value in
                guard let kept = Self.rules[slot].kept(value) else {
                    preconditionFailure("\(key) cannot hold \(value)")
                }
                return kept
            }
        }
    }

    /// The special value the device sends for the fleet key `key` instead of a number, if any; setting one removes
    /// the key's value.
    ///
    /// - Precondition: `key` is a fleet key.
    public func special(_ key: String) -> SpecialValue? {
        guard let slot = Self.slotOfKey[key] else { preconditionFailure("\(key) is not a fleet key") }
        return specials[slot]
    }

    /// Makes the device send `value` for the fleet key `key` instead of a number (`nil`: no special value).
    ///
    /// - Precondition: `key` is a fleet key.
    public mutating func setSpecial(_ key: String, _ value: SpecialValue?) {
        guard let slot = Self.slotOfKey[key] else { preconditionFailure("\(key) is not a fleet key") }
        specials[slot] = value
        if value != nil { slots[slot] = nil }
    }

    /// The fleet form of `reading`.
    public init(_ reading: Reading) {
        guard let script = DeviceFamily(of: reading).script else {
            preconditionFailure(
                reading.kind == .bandDay
                    ? "a band day is never in a device's memory: bands hold items (BandState)"
                    : "a heart-rate sensor keeps no records: it streams beats")
        }
        self.init()
        if script.kind.isDay {
            date = reading.measuredAt.day.description
        } else {
            measuredAt = reading.measuredAt.description
        }
        for scripted in script.fields {
            slots[scripted.slot] = scripted.field.value(in: reading).flatMap(scripted.rule.kept)
        }
        let annotations = reading.annotations
        for (field, value) in reading.unavailableFields {
            if let key = field.fleetKey, let slot = Self.slotOfKey[key] { specials[slot] = value }
        }
        status = annotations.status
        user = annotations.userIndex
    }

    /// The family whose readings have this reading's fields: the first family (in `DeviceFamily` order) whose
    /// kind's first fleet key the reading has (`systolic`: blood pressure, `glucose`, `weight`: scale,
    /// `temperature`: thermometer, `spo2`: pulse oximeter), or whose day it dates (`date`: activity monitor);
    /// `nil` for none.
    public var impliedFamily: DeviceFamily? {
        Self.implying.first { _, script in
            script.kind.isDay
                ? date != nil
                : slots[script.fields[0].slot] != nil || specials[script.fields[0].slot] != nil
        }?.family
    }

    /// The reading for a device of `family`, rounded to what it can send.
    ///
    /// - Throws: ``FleetError`` naming the missing or out-of-range field, or a field of another family's readings.
    public func reading(for family: DeviceFamily, at path: String) throws(FleetError) -> Reading {
        guard let script = family.script else {
            throw FleetError(
                path: path,
                message: family == .smartband
                    ? "is not for a smartband: it records by itself from recordingSince"
                    : "is not for a heart-rate sensor: it streams beats")
        }
        if let other = slots.indices.first(where: { (slots[$0] != nil || specials[$0] != nil) && !script.owns[$0] }) {
            throw FleetError(path: path + "." + Self.keys[other], message: "is not for this device")
        }
        func required(_ field: String) -> FleetError {
            FleetError(path: path + "." + field, message: "is required for this device")
        }
        let kind = script.kind
        var time: Timestamp?
        if kind.isDay {
            guard let text = date else { throw required("date") }
            guard let day = CalendarDate(parsing: text) else {
                throw FleetError(path: path + ".date", message: "is not yyyy-MM-dd")
            }
            time = Timestamp(secondsSince1970: day.daysSince1970 * 86_400)
        }
        var fieldValues: [(field: ReadingField, value: FieldValue)] = []
        fieldValues.reserveCapacity(script.fields.count)
        var systolic: Double?
        var annotations = ReadingAnnotations()
        for scripted in script.fields {
            if let special = specials[scripted.slot] {
                try Self.check(special, of: scripted, for: family, at: path)
                annotations.unavailable[kind.fields.firstIndex { $0 === scripted.field }!] = special
                continue
            }
            var value = try scripted.sent(slots[scripted.slot], at: path)
            // what a device knows of two fields together
            switch (scripted.slot, value) {
            case (Self.systolic, .number(let number)?):
                systolic = number
            case (Self.diastolic, .number(let diastolic)?):
                if let systolic, diastolic >= systolic {
                    throw FleetError(path: path + ".diastolic", message: "must be below systolic")
                }
            case (Self.swimCalories, _):
                // swim calories come with swim minutes, 0 when the fleet gives none
                value = slots[Self.swimMinutes] == nil ? nil : value ?? .integer(0)
            default:
                break
            }
            if let value { fieldValues.append((scripted.field, value)) }
        }
        if time == nil {
            guard let text = measuredAt else { throw required("measuredAt") }
            guard let timestamp = Timestamp(parsing: text) else {
                throw FleetError(path: path + ".measuredAt", message: "is not yyyy-MM-dd HH:mm:ss")
            }
            time = timestamp
        }
        guard let time,
            var reading = Reading(kind: kind, measuredAt: time, values: fieldValues, annotations: annotations)
        else {
            preconditionFailure("the checked values of a \(kind) do not make one: \(fieldValues.map(\.value))")
        }
        try annotate(&reading, for: family, at: path)
        return reading
    }

    /// Every fleet key of every reading kind, once, in the kinds' order (`pulse` is one key for a blood pressure
    /// and an oximetry reading).
    static let keys: [String] = ReadingKind.allCases.flatMap(\.fleetKeys).reduce(into: []) { keys, key in
        if !keys.contains(key) { keys.append(key) }
    }

    /// The slot of each fleet key, and its rule.
    static let slotOfKey = [String: Int](uniqueKeysWithValues: keys.enumerated().map { ($0.element, $0.offset) })
    static let rules = keys.map(DeviceRule.of)
    private static let (systolic, diastolic) = (slotOfKey["systolic"]!, slotOfKey["diastolic"]!)
    private static let (swimMinutes, swimCalories) = (slotOfKey["swimMinutes"]!, slotOfKey["swimCalories"]!)

    /// A kind's fields a fleet file scripts, and which slots are its own.
    struct Script {
        var kind: ReadingKind
        var fields: [Scripted]
        var owns: [Bool]
    }

    /// A field a fleet file scripts: its slot and its device rule.
    struct Scripted {
        var field: ReadingField
        var slot: Int
        var rule: DeviceRule

        /// `value`, the fleet's value of the field, as the device sends it: within its range and rounded as its
        /// rule says, of the field's type; `nil` when the reading leaves out an optional field. `path` is the
        /// reading's.
        func sent(_ value: FieldValue?, at path: String) throws(FleetError) -> FieldValue? {
            let countMessage = "is required and must be a count the device can hold"
            func error(_ message: String) -> FleetError {
                FleetError(path: path + "." + SimulatedReading.keys[slot], message: message)
            }
            guard let value else {
                guard field.presence == .required else { return nil }
                if case .count = rule { throw error(countMessage) }
                throw error("is required for this device")
            }
            switch (rule, value) {
            case (.measured(let range, let stepsPerUnit), .number(let written)):
                let rounded = (written * stepsPerUnit).rounded() / stepsPerUnit
                // whole units are checked as the device rounds them, finer steps as written
                guard range.contains(stepsPerUnit == 1 ? rounded : written) else {
                    throw error("must be from \(range.lowerBound) to \(range.upperBound)")
                }
                return field.type == .integer ? .integer(Int(rounded)) : .number(rounded)
            case (.count(let maximum), .integer(let count)):
                guard count >= 0, count <= maximum else { throw error(countMessage) }
                return value
            case (.whole(let range), .integer(let number)):
                if let range, !range.contains(number) {
                    throw error("must be from \(range.lowerBound) to \(range.upperBound)")
                }
                return value
            case (.flag, .flag):
                return value
            default:
                preconditionFailure("\(SimulatedReading.keys[slot]) holds \(value), which its rule does not take")
            }
        }
    }

    /// The scripts of the families that have one, in `DeviceFamily` order: the order ``impliedFamily`` tries.
    private static let implying = DeviceFamily.allCases.compactMap { family in
        family.script.map { (family: family, script: $0) }
    }
}

extension SimulatedReading.Script {
    /// The script of `kind`.
    init(_ kind: ReadingKind) {
        let fields = kind.fields.compactMap { field in
            field.fleetKey.map { key in
                SimulatedReading.Scripted(
                    field: field, slot: SimulatedReading.keys.firstIndex(of: key)!, rule: DeviceRule.of(key))
            }
        }
        let owns = SimulatedReading.keys.indices.map { slot in fields.contains { $0.slot == slot } }
        self.init(kind: kind, fields: fields, owns: owns)
    }

    /// The script of `kind`, for a kind a fleet can script (one whose fields have fleet keys).
    static func of(_ kind: ReadingKind) -> Self? { scripts[kind.ordinal] }

    private static let scripts: [Self?] = ReadingKind.allCases.map { kind in
        kind.fields.contains { $0.fleetKey != nil } ? Self(kind) : nil
    }
}
