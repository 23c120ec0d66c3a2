import Testing
import VitalCore

@Suite("Reading kinds: each field described once")
struct ReadingKindTests {
    static let time = Timestamp(secondsSince1970: 1_763_713_800)

    /// One reading of each kind with every field it can have.
    static let full: [Reading] = [
        .bloodPressure(
            BloodPressureReading(systolic: 121, diastolic: 79.5, heartRate: 66, arrhythmia: true, measuredAt: time)),
        .glucose(GlucoseReading(mgPerDeciliter: 98.5, measuredAt: time)),
        .weight(
            WeightReading(
                kilograms: 72.35, measuredAt: time,
                bodyComposition: BodyComposition(
                    bodyFatPercentage: 21.5, basalMetabolism: 6_600, musclePercentage: 40.2, muscleMass: 29.1,
                    fatFreeMass: 56.8, softLeanMass: 53.9, bodyWaterMass: 41.6, impedance: 512.5))),
        .oximetry(OximetryReading(oxygenSaturation: 97, heartRate: 71, perfusionIndex: 3.4, measuredAt: time)),
        .temperature(TemperatureReading(celsius: 36.8, measuredAt: time)),
        .activity(
            ActivityDay(
                date: time.day, steps: 8_401, calories: 205, sleepMinutes: 520, sleepEfficiency: 97, swimMinutes: 30,
                swimCalories: 240)),
        .band(
            BandDay(
                date: time.day, steps: 1_438, calories: 57, distance: 1_006,
                sleep: .init(deep: 90, light: 228, awake: 62),
                heartRate: .init(minimum: 47, average: 64, maximum: 84, minutes: 692),
                sports: [.init(type: 1, start: 490, end: 525, calories: 120)])),
        .heartRate(HeartRateReading(heartRate: 62, rrIntervals: [812.5, 790.25, 1_001], measuredAt: time)),
    ]

    @Test("every vocabulary of every kind, as the documentation lists them")
    func vocabularies() {
        func names(_ kind: ReadingKind) -> [String] { kind.fields.map { $0.name ?? "-" } }
        #expect(names(.bloodPressure) == ["sys", "dia", "hr", "arr"])
        #expect(
            ReadingKind.bloodPressure.fields.map(\.resultPath) == [
                ["systolic"], ["diastolic"], ["heart_rate"], ["arrhythmia"],
            ])
        #expect(ReadingKind.bloodPressure.fields.map(\.fleetKey) == ["systolic", "diastolic", "pulse", "arrhythmia"])
        #expect(ReadingKind.bloodPressure.fields.map(\.loinc) == ["8480-6", "8462-4", "8867-4", nil])
        #expect(
            names(.weight) == ["kg", "fat", "musclepct", "muscle", "ffm", "slm", "water", "bmr", "imp"])
        #expect(
            ReadingKind.weight.fields.compactMap(\.column?.name) == [
                "weight_kg", "body_fat_percent", "muscle_percent", "muscle_mass_kg", "fat_free_mass_kg",
                "soft_lean_mass_kg", "body_water_mass_kg", "basal_metabolism_kJ", "impedance_ohm",
            ])
        #expect(names(.oximetry) == ["spo2", "hr", "pi", "wave"])
        #expect(names(.activity) == ["steps", "cal", "sleep", "eff", "swim", "swimcal"])
        #expect(
            ReadingKind.activity.fields.map(\.fleetKey) == [
                "steps", "calories", "sleepMinutes", "sleepEfficiency", "swimMinutes", "swimCalories",
            ])
        // a band day's sleep time and efficiency are computed from its segments, never stored
        #expect(
            names(.bandDay) == [
                "steps", "cal", "dist", "sporttotals", "-", "-", "deep", "light", "awake", "sleepsegs", "hrmin",
                "hravg", "hrmax", "hrn", "sports",
            ])
        #expect(names(.heartRate) == ["hr", "rr"])
        #expect(ReadingKind.heartRate.fields.map(\.resultPath) == [["heart_rate"], nil])
        #expect(
            ReadingKind.allCases.map(\.rawValue) == [
                "blood_pressure", "glucose", "weight", "oximetry", "temperature", "activity", "band_day", "heart_rate",
            ])
    }

    @Test("a field's names are unique within its kind, in every vocabulary")
    func unique() {
        for kind in ReadingKind.allCases {
            for names in [
                kind.fields.compactMap(\.name), kind.fields.compactMap(\.resultPath).map { $0.joined(separator: ".") },
                kind.fields.compactMap(\.column).map(\.name), kind.fields.compactMap(\.fleetKey),
            ] {
                #expect(Set(names).count == names.count, "\(kind): \(names)")
            }
        }
    }

    @Test("the store keeps every field not computed from others; one name is one type in every kind (one column)")
    func storedFields() {
        #expect(
            ReadingKind.weight.storedFields.map(\.name) == [
                "kg", "fat", "musclepct", "muscle", "ffm", "slm", "water", "bmr", "imp",
            ])
        #expect(ReadingKind.bandDay.storedFields.count == ReadingKind.bandDay.fields.count - 2)
        var types: [String: ReadingField.ValueType] = [:]
        for kind in ReadingKind.allCases {
            #expect(kind.storedFields.allSatisfy { $0.name != nil }, "\(kind)")
            for field in kind.storedFields {
                let name = field.name ?? ""
                #expect(types[name, default: field.type] == field.type, "\(kind).\(name)")
                types[name] = field.type
            }
        }
        #expect(types.count == 36)
    }

    @Test("each kind's fields in column order are its fields with a column, sorted by column")
    func columnOrder() {
        for kind in ReadingKind.allCases {
            let expected = kind.fields.compactMap(\.column).sorted { $0.rawValue < $1.rawValue }
            #expect(kind.fieldsInColumnOrder.compactMap(\.column) == expected, "\(kind)")
        }
        #expect(ReadingKind.oximetry.fieldsInColumnOrder.map(\.name) == ["hr", "spo2", "pi", "wave"])
    }

    @Test("every reading is rebuilt from its stored fields, equal", arguments: full)
    func roundTrip(reading: Reading) {
        let stored = reading.fieldValues.filter { $0.field.isStored }
        #expect(Reading(kind: reading.kind, measuredAt: reading.measuredAt, values: stored) == reading)
    }

    @Test("the values of a blood pressure reading, field by field")
    func values() {
        let values = Self.full[0].fieldValues.map { ($0.field.name, $0.value) }
        #expect(values.map(\.0) == ["sys", "dia", "hr", "arr"])
        #expect(values.map(\.1) == [.number(121), .number(79.5), .integer(66), .flag(true)])
        // an optional quantity the device did not report is not a field of the reading
        let bare = Reading.bloodPressure(
            BloodPressureReading(systolic: 120, diastolic: 80, measuredAt: Self.time))
        #expect(bare.fieldValues.map(\.field.name) == ["sys", "dia"])
        // a recording without RR intervals has an empty series (records counts 0 of them; the store writes none)
        let recording = Reading.heartRate(
            HeartRateReading(heartRate: 60, rrIntervals: [], measuredAt: Self.time))
        #expect(recording.fieldValues.map(\.value) == [.integer(60), .intervals([])])
    }

    /// Values of `kind` given as `(name, value)` pairs.
    static func reading(_ kind: ReadingKind, _ pairs: [(String, FieldValue)]) -> Reading? {
        var values: [(field: ReadingField, value: FieldValue)] = []
        for (name, value) in pairs {
            guard let field = kind.field(named: name) else { return nil }
            values.append((field, value))
        }
        return Reading(kind: kind, measuredAt: time, values: values)
    }

    @Test("a reading is refused when a required field is missing, given twice or of the wrong type")
    func refused() {
        #expect(Self.reading(.bloodPressure, [("sys", .number(120))]) == nil)
        #expect(
            Self.reading(.bloodPressure, [("sys", .number(120)), ("dia", .number(80)), ("dia", .number(81))]) == nil)
        #expect(Self.reading(.bloodPressure, [("sys", .integer(120)), ("dia", .number(80))]) == nil)
        #expect(
            Self.reading(.glucose, [("mgdl", .number(90))])
                == .glucose(GlucoseReading(mgPerDeciliter: 90, measuredAt: Self.time)))
        // a computed field is not stored, so it cannot be given
        let computed = ReadingKind.bandDay.fields[4]
        #expect(computed.name == nil && !computed.isStored)
    }

    @Test("a group comes whole: a body composition with its body fat, a band day's heart rate with its four figures")
    func groups() {
        // the other quantities of a body composition come only with its body fat
        #expect(Self.reading(.weight, [("kg", .number(70)), ("water", .number(40.5))]) == nil)
        #expect(
            Self.reading(.weight, [("kg", .number(70)), ("fat", .number(20)), ("water", .number(40.5))])
                == .weight(
                    WeightReading(
                        kilograms: 70, measuredAt: Self.time,
                        bodyComposition: BodyComposition(bodyFatPercentage: 20, bodyWaterMass: 40.5))))
        let day: [(String, FieldValue)] = [
            ("steps", .integer(1)), ("cal", .integer(2)), ("dist", .integer(3)), ("deep", .integer(4)),
            ("light", .integer(5)), ("awake", .integer(6)),
        ]
        #expect(Self.reading(.bandDay, day + [("hrmin", .integer(50)), ("hrmax", .integer(90))]) == nil)
        #expect(Self.reading(.bandDay, day + [("hravg", .integer(50))]) == nil)
        let whole = Self.reading(
            .bandDay,
            day + [("hrmin", .integer(50)), ("hravg", .integer(60)), ("hrmax", .integer(90)), ("hrn", .integer(7))])
        guard case .band(let band) = whole else {
            Issue.record("no band day: \(String(describing: whole))")
            return
        }
        #expect(band.heartRate == .init(minimum: 50, average: 60, maximum: 90, minutes: 7))
        #expect(band.sleep.minutes == 15 && band.sports.isEmpty)
    }

    @Test("RR intervals must be positive and finite")
    func intervals() {
        #expect(Self.reading(.heartRate, [("hr", .integer(60)), ("rr", .intervals([800, -1]))]) == nil)
        #expect(Self.reading(.heartRate, [("hr", .integer(60)), ("rr", .intervals([800, .infinity]))]) == nil)
    }
}
