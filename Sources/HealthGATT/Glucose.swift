/// The unit of a glucose concentration.
public enum GlucoseConcentrationUnit: String, Hashable, Sendable {
    /// kg/L (flag bit 2 clear): 1 mg/dL = 10⁻⁵ kg/L.
    case kilogramPerLiter = "kg/L"
    /// mol/L (flag bit 2 set): 1 mmol/L = 10⁻³ mol/L.
    case molePerLiter = "mol/L"
}

/// The fluid a glucose sample is (low nibble of Type-Sample Location).
public enum GlucoseSampleType: UInt8, Hashable, Sendable, CaseIterable {
    case capillaryWholeBlood = 1
    case capillaryPlasma = 2
    case venousWholeBlood = 3
    case venousPlasma = 4
    case arterialWholeBlood = 5
    case arterialPlasma = 6
    case undeterminedWholeBlood = 7
    case undeterminedPlasma = 8
    case interstitialFluid = 9
    case controlSolution = 10
}

/// Where a glucose sample was taken (high nibble of Type-Sample Location).
public enum GlucoseSampleLocation: UInt8, Hashable, Sendable, CaseIterable {
    case finger = 1
    case alternateSiteTest = 2
    case earlobe = 3
    case controlSolution = 4
    case notAvailable = 15
}

/// The Sensor Status Annunciation field (16 bits; bits 0–12 defined, 13–15 reserved and kept as received).
public struct SensorStatusAnnunciation: OptionSet, Hashable, Sendable {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let deviceBatteryLow = Self(rawValue: 1 << 0)
    public static let sensorMalfunction = Self(rawValue: 1 << 1)
    public static let sampleSizeInsufficient = Self(rawValue: 1 << 2)
    public static let stripInsertionError = Self(rawValue: 1 << 3)
    public static let stripTypeIncorrect = Self(rawValue: 1 << 4)
    public static let resultTooHigh = Self(rawValue: 1 << 5)
    public static let resultTooLow = Self(rawValue: 1 << 6)
    public static let temperatureTooHigh = Self(rawValue: 1 << 7)
    public static let temperatureTooLow = Self(rawValue: 1 << 8)
    public static let readInterrupted = Self(rawValue: 1 << 9)
    public static let generalDeviceFault = Self(rawValue: 1 << 10)
    public static let timeFault = Self(rawValue: 1 << 11)
}

/// Glucose Measurement (0x2A18): one record of a glucose meter, live or read through the Record Access Control
/// Point.
///
/// Flags: bit 0 time offset, bit 1 concentration with type and sample location, bit 2 unit (mol/L when set),
/// bit 3 sensor status annunciation, bit 4 context information follows; bits 5–7 are reserved and ignored, with any bytes
/// after the known fields. The
/// type and location must be defined values (reserved ones are rejected).
public struct GlucoseMeasurement: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A18
    public static let name = "Glucose Measurement"

    /// The concentration with its sample type and location (present together).
    public struct Concentration: Hashable, Sendable {
        /// In ``GlucoseMeasurement/unit``.
        public var value: SFloat
        public var type: GlucoseSampleType
        public var location: GlucoseSampleLocation

        public init(value: SFloat, type: GlucoseSampleType, location: GlucoseSampleLocation) {
            self.value = value
            self.type = type
            self.location = location
        }
    }

    public var sequenceNumber: UInt16
    public var baseTime: DateTime
    /// Minutes to add to ``baseTime`` for the user-facing time.
    public var timeOffset: Int16?
    public var concentration: Concentration?
    /// The concentration's unit (flag bit 2, which exists even without a concentration).
    public var unit: GlucoseConcentrationUnit
    public var sensorStatus: SensorStatusAnnunciation?
    /// Whether a Glucose Measurement Context with the same sequence number follows.
    public var contextInformationFollows: Bool

    public init(
        sequenceNumber: UInt16, baseTime: DateTime, timeOffset: Int16? = nil, concentration: Concentration? = nil,
        unit: GlucoseConcentrationUnit = .kilogramPerLiter, sensorStatus: SensorStatusAnnunciation? = nil,
        contextInformationFollows: Bool = false
    ) {
        self.sequenceNumber = sequenceNumber
        self.baseTime = baseTime
        self.timeOffset = timeOffset
        self.concentration = concentration
        self.unit = unit
        self.sensorStatus = sensorStatus
        self.contextInformationFollows = contextInformationFollows
    }

    /// The concentration in mg/dL, or `nil` without one or for a special value (1 kg/L = 10⁵ mg/dL;
    /// 1 mol/L = 1000 mmol/L, converted with 18.016 mg/dL per mmol/L).
    public var milligramsPerDeciliter: Double? {
        guard let value = concentration?.value, value.special == nil else { return nil }
        // kg/L × 10⁵, computed from the decimal digits so that 120 × 10⁻⁵ kg/L is exactly 120 mg/dL
        return unit == .kilogramPerLiter
            ? decimalValue(mantissa: value.mantissa, exponent: value.exponent + 5)
            : decimalValue(mantissa: value.mantissa, exponent: value.exponent + 3) * 18.016
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let flags = try reader.flags8(known: 0b1_1111)
        unit = flags & 0b100 == 0 ? .kilogramPerLiter : .molePerLiter
        sequenceNumber = try reader.uint16("sequence_number")
        baseTime = try reader.dateTime("base_time")
        timeOffset = flags & 1 != 0 ? try reader.int16("time_offset") : nil
        if flags & 0b10 != 0 {
            let value = try reader.sfloat("glucose_concentration")
            let at = reader.offset
            let typeAndLocation = try reader.uint8("type_sample_location")
            guard let type = GlucoseSampleType(rawValue: typeAndLocation & 0xF) else {
                throw reader.error(.reservedValue, "type_sample_location.type", at: at)
            }
            guard let location = GlucoseSampleLocation(rawValue: typeAndLocation >> 4) else {
                throw reader.error(.reservedValue, "type_sample_location.sample_location", at: at)
            }
            concentration = Concentration(value: value, type: type, location: location)
        } else {
            concentration = nil
        }
        sensorStatus =
            flags & 0b1000 != 0
            ? SensorStatusAnnunciation(rawValue: try reader.uint16("sensor_status_annunciation")) : nil
        contextInformationFollows = flags & 0b1_0000 != 0
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(17)
        var flags: UInt8 = 0
        if timeOffset != nil { flags |= 1 }
        if concentration != nil { flags |= 0b10 }
        if unit == .molePerLiter { flags |= 0b100 }
        if sensorStatus != nil { flags |= 0b1000 }
        if contextInformationFollows { flags |= 0b1_0000 }
        bytes.append(flags)
        bytes.appendLE(sequenceNumber)
        baseTime.append(to: &bytes)
        if let timeOffset { bytes.appendLE(UInt16(bitPattern: timeOffset)) }
        if let concentration {
            bytes.appendLE(concentration.value.bits)
            bytes.append(concentration.location.rawValue << 4 | concentration.type.rawValue)
        }
        if let sensorStatus { bytes.appendLE(sensorStatus.rawValue) }
        return bytes
    }
}

/// Glucose Measurement Context (0x2A34): what surrounded a glucose measurement with the same sequence number.
///
/// Flags: bit 0 carbohydrate (grams), 1 meal, 2 tester and health, 3 exercise, 4 medication, 5 medication unit
/// (millilitres when set, else milligrams), 6 HbA1c, 7 extended flags present. The extended flags byte is all reserved and kept as received.
/// Enumerated values must be defined ones (reserved ones are rejected).
public struct GlucoseMeasurementContext: GATTCharacteristic {
    public static let uuid: UInt16 = 0x2A34
    public static let name = "Glucose Measurement Context"

    public enum CarbohydrateID: UInt8, Hashable, Sendable, CaseIterable {
        case breakfast = 1
        case lunch, dinner, snack, drink, supper, brunch
    }

    public enum Meal: UInt8, Hashable, Sendable, CaseIterable {
        case preprandial = 1
        case postprandial, fasting, casual, bedtime
    }

    public enum Tester: UInt8, Hashable, Sendable, CaseIterable {
        case selfTest = 1
        case healthCareProfessional = 2
        case labTest = 3
        case notAvailable = 15
    }

    public enum Health: UInt8, Hashable, Sendable, CaseIterable {
        case minorHealthIssues = 1
        case majorHealthIssues, duringMenses, underStress, noHealthIssues
        case notAvailable = 15
    }

    public enum MedicationID: UInt8, Hashable, Sendable, CaseIterable {
        case rapidActingInsulin = 1
        case shortActingInsulin, intermediateActingInsulin, longActingInsulin, premixedInsulin
    }

    /// The unit of a medication amount: the SIG's unit with its decimal exponent, as the GATT Specification
    /// Supplement declares the field (`kg × 10⁻⁶` and `L × 10⁻³`).
    public enum MedicationUnit: String, Hashable, Sendable {
        /// Milligrams, `kg × 10⁻⁶` (flag bit 5 clear).
        case milligrams = "mg"
        /// Millilitres, `L × 10⁻³` (flag bit 5 set).
        case milliliters = "mL"
    }

    public struct Carbohydrate: Hashable, Sendable {
        public var id: CarbohydrateID
        /// Grams: the field is `kg × 10⁻³`.
        public var amount: SFloat
        public init(id: CarbohydrateID, amount: SFloat) {
            self.id = id
            self.amount = amount
        }
    }

    public struct TesterHealth: Hashable, Sendable {
        public var tester: Tester
        public var health: Health
        public init(tester: Tester, health: Health) {
            self.tester = tester
            self.health = health
        }
    }

    public struct Exercise: Hashable, Sendable {
        /// Seconds; 65535 means overrun.
        public var duration: UInt16
        /// Percent.
        public var intensity: UInt8
        public init(duration: UInt16, intensity: UInt8) {
            self.duration = duration
            self.intensity = intensity
        }
    }

    public struct Medication: Hashable, Sendable {
        public var id: MedicationID
        /// In ``GlucoseMeasurementContext/medicationUnit``.
        public var amount: SFloat
        public init(id: MedicationID, amount: SFloat) {
            self.id = id
            self.amount = amount
        }
    }

    public var sequenceNumber: UInt16
    /// The extended flags byte, when present (all its bits are reserved).
    public var extendedFlags: UInt8?
    public var carbohydrate: Carbohydrate?
    public var meal: Meal?
    public var testerHealth: TesterHealth?
    public var exercise: Exercise?
    public var medication: Medication?
    /// The medication's unit (flag bit 5, which exists even without a medication).
    public var medicationUnit: MedicationUnit
    /// HbA1c in percent.
    public var hbA1c: SFloat?

    public init(
        sequenceNumber: UInt16, extendedFlags: UInt8? = nil, carbohydrate: Carbohydrate? = nil, meal: Meal? = nil,
        testerHealth: TesterHealth? = nil, exercise: Exercise? = nil, medication: Medication? = nil,
        medicationUnit: MedicationUnit = .milligrams, hbA1c: SFloat? = nil
    ) {
        self.sequenceNumber = sequenceNumber
        self.extendedFlags = extendedFlags
        self.carbohydrate = carbohydrate
        self.meal = meal
        self.testerHealth = testerHealth
        self.exercise = exercise
        self.medication = medication
        self.medicationUnit = medicationUnit
        self.hbA1c = hbA1c
    }

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        let flags = try reader.uint8("flags")
        sequenceNumber = try reader.uint16("sequence_number")
        extendedFlags = flags & 0x80 != 0 ? try reader.uint8("extended_flags") : nil
        if flags & 1 != 0 {
            let at = reader.offset
            guard let id = CarbohydrateID(rawValue: try reader.uint8("carbohydrate_id")) else {
                throw reader.error(.reservedValue, "carbohydrate_id", at: at)
            }
            carbohydrate = Carbohydrate(id: id, amount: try reader.sfloat("carbohydrate"))
        } else {
            carbohydrate = nil
        }
        if flags & 0b10 != 0 {
            let at = reader.offset
            guard let meal = Meal(rawValue: try reader.uint8("meal")) else {
                throw reader.error(.reservedValue, "meal", at: at)
            }
            self.meal = meal
        } else {
            meal = nil
        }
        if flags & 0b100 != 0 {
            let at = reader.offset
            let byte = try reader.uint8("tester_health")
            guard let tester = Tester(rawValue: byte & 0xF) else {
                throw reader.error(.reservedValue, "tester_health.tester", at: at)
            }
            guard let health = Health(rawValue: byte >> 4) else {
                throw reader.error(.reservedValue, "tester_health.health", at: at)
            }
            testerHealth = TesterHealth(tester: tester, health: health)
        } else {
            testerHealth = nil
        }
        exercise =
            flags & 0b1000 != 0
            ? Exercise(
                duration: try reader.uint16("exercise_duration"), intensity: try reader.uint8("exercise_intensity"))
            : nil
        medicationUnit = flags & 0b10_0000 == 0 ? .milligrams : .milliliters
        if flags & 0b1_0000 != 0 {
            let at = reader.offset
            guard let id = MedicationID(rawValue: try reader.uint8("medication_id")) else {
                throw reader.error(.reservedValue, "medication_id", at: at)
            }
            medication = Medication(id: id, amount: try reader.sfloat("medication"))
        } else {
            medication = nil
        }
        hbA1c = flags & 0b100_0000 != 0 ? try reader.sfloat("hba1c") : nil
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(17)
        var flags: UInt8 = 0
        if carbohydrate != nil { flags |= 1 }
        if meal != nil { flags |= 0b10 }
        if testerHealth != nil { flags |= 0b100 }
        if exercise != nil { flags |= 0b1000 }
        if medication != nil { flags |= 0b1_0000 }
        if medicationUnit == .milliliters { flags |= 0b10_0000 }
        if hbA1c != nil { flags |= 0b100_0000 }
        if extendedFlags != nil { flags |= 0x80 }
        bytes.append(flags)
        bytes.appendLE(sequenceNumber)
        if let extendedFlags { bytes.append(extendedFlags) }
        if let carbohydrate {
            bytes.append(carbohydrate.id.rawValue)
            bytes.appendLE(carbohydrate.amount.bits)
        }
        if let meal { bytes.append(meal.rawValue) }
        if let testerHealth { bytes.append(testerHealth.health.rawValue << 4 | testerHealth.tester.rawValue) }
        if let exercise {
            bytes.appendLE(exercise.duration)
            bytes.append(exercise.intensity)
        }
        if let medication {
            bytes.append(medication.id.rawValue)
            bytes.appendLE(medication.amount.bits)
        }
        if let hbA1c { bytes.appendLE(hbA1c.bits) }
        return bytes
    }
}

/// Glucose Feature (0x2A51): what a glucose meter supports (16 bits; undefined bits kept as received).
public struct GlucoseFeature: GATTCharacteristic, OptionSet {
    public static let uuid: UInt16 = 0x2A51
    public static let name = "Glucose Feature"

    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let lowBatteryDetection = Self(rawValue: 1 << 0)
    public static let sensorMalfunctionDetection = Self(rawValue: 1 << 1)
    public static let sensorSampleSize = Self(rawValue: 1 << 2)
    public static let stripInsertionErrorDetection = Self(rawValue: 1 << 3)
    public static let stripTypeErrorDetection = Self(rawValue: 1 << 4)
    public static let resultHighLowDetection = Self(rawValue: 1 << 5)
    public static let temperatureHighLowDetection = Self(rawValue: 1 << 6)
    public static let readInterruptDetection = Self(rawValue: 1 << 7)
    public static let generalDeviceFault = Self(rawValue: 1 << 8)
    public static let timeFault = Self(rawValue: 1 << 9)
    public static let multipleBond = Self(rawValue: 1 << 10)

    public init(bytes: [UInt8]) throws(GATTError) {
        var reader = ByteReader(bytes, characteristic: Self.name)
        rawValue = try reader.uint16("glucose_feature")
        try reader.finish()
    }

    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendLE(rawValue)
        return bytes
    }
}
