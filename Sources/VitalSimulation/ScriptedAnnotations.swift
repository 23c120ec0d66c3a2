import HealthGATT
import VitalCore
import VitalDevices

// What a fleet file's reading says beyond its values (`status`, a special value for a field, `user`), and which
// family's profile can carry each: a device sends only what its bytes have room for, so anything else is refused
// by name when the fleet file is read.

extension DeviceFamily {
    /// The statuses the family's profile carries, with the name of the profile field.
    var scriptableStatus: (names: ReadingStatus, field: String) {
        switch self {
        case .bloodPressure:
            (ReadingStatus(profileBits: 0x3F, first: "bodyMovement", count: 6), "Blood Pressure Measurement Status")
        case .glucose:
            (ReadingStatus(profileBits: 0xFFF, first: "deviceBatteryLow", count: 12), "Sensor Status Annunciation")
        case .pulseOximeter:
            (
                ReadingStatus(profileBits: 0x7FF, first: "measurementOngoing", count: 11)
                    .union(ReadingStatus(profileBits: 0xFFFF, first: "extendedDisplayUpdateOngoing", count: 16))
                    .union(.deviceClockNotSet),
                "PLX measurement, device and sensor statuses and flags"
            )
        case .scale: (.measurementUnsuccessful, "\"measurement unsuccessful\" value")
        case .thermometer: (Self.sites, "Temperature Type")
        case .activityMonitor, .smartband, .heartRateSensor: ([], "vendor protocol")
        }
    }

    /// The thermometer's sites, `armpit` … `tympanum`: one Temperature Type a reading.
    static let sites = ReadingStatus(profileBits: 0x1FF, first: "armpit", count: 9)

    /// A device of the family, as an error message names it: `a blood pressure monitor`, `an activity monitor`.
    var aDevice: String {
        let name = traits.deviceName
        return ("aeiou".contains(name.first!) ? "an " : "a ") + name
    }
}

extension SimulatedReading {
    /// Checks that a device of `family` can send `special` in place of `scripted`'s value: any special value in an
    /// SFLOAT or FLOAT field; only NaN (65535, "measurement unsuccessful") in a scale's weight or body fat; none in
    /// a flag or a vendor protocol's integer.
    static func check(
        _ special: SpecialValue, of scripted: Scripted, for family: DeviceFamily, at path: String
    ) throws(FleetError) {
        let key = keys[scripted.slot]
        let error = { (message: String) in
            FleetError(path: path + "." + key, message: "is \"\(special)\": \(message)")
        }
        switch (family, scripted.rule) {
        case (.scale, _):
            guard special == .nan else {
                throw error(
                    "a scale sends only \"NaN\" (65535, measurement unsuccessful) in place of its \(key)")
            }
        case (.bloodPressure, .measured), (.glucose, .measured), (.thermometer, .measured),
            (.pulseOximeter, .measured):
            return
        default:
            throw error(
                "\(family.aDevice) sends its \(key) as "
                    + (scripted.rule == .flag ? "a flag" : "an integer of a vendor protocol")
                    + ", which has no special values")
        }
    }

    /// Puts the fleet reading's `status` and `user` on `reading`, as a device of `family` sends them and the hub
    /// decodes them: a blood pressure's `irregularPulse` is its arrhythmia flag (either sets both, and a status
    /// sent makes the flag known); a scale's field sent as NaN adds `measurementUnsuccessful`.
    ///
    /// - Throws: ``FleetError`` naming the status or the `user` the family's profile cannot carry.
    func annotate(_ reading: inout Reading, for family: DeviceFamily, at path: String) throws(FleetError) {
        let (carried, field) = family.scriptableStatus
        for name in status.names where !carried.contains(ReadingStatus(name: name)!) {
            throw FleetError(
                path: path + ".status",
                message: "has \"\(name)\", which \(family.aDevice) cannot send: its \(field) has "
                    + (carried.names.isEmpty ? "no statuses" : carried.names.joined(separator: ", ")))
        }
        var status = status
        switch (family, reading) {
        case (.bloodPressure, .bloodPressure(var bp)):
            if status.isSuperset(of: [.pulseRateTooHigh, .pulseRateTooLow]) {
                throw FleetError(
                    path: path + ".status",
                    message: "has both pulseRateTooHigh and pulseRateTooLow: the pulse rate range is one of them")
            }
            if bp.arrhythmia == false, status.contains(.irregularPulse) {
                throw FleetError(
                    path: path + ".arrhythmia", message: "is false, but the status has irregularPulse, the same bit")
            }
            if bp.arrhythmia == true || status.contains(.irregularPulse) {
                bp.arrhythmia = true
                status.insert(.irregularPulse)
            } else if !status.isEmpty {
                bp.arrhythmia = false
            }
            reading = .bloodPressure(bp)
        case (.scale, _):
            let unsuccessful = !reading.annotations.unavailable.isEmpty
            if status.contains(.measurementUnsuccessful), !unsuccessful {
                throw FleetError(
                    path: path + ".status",
                    message: "has \"measurementUnsuccessful\", which a scale sends as a weight or bodyFat of \"NaN\"")
            }
            if unsuccessful { status.insert(.measurementUnsuccessful) }
        case (.thermometer, _):
            if status.intersection(DeviceFamily.sites).names.count > 1 {
                throw FleetError(
                    path: path + ".status",
                    message: "has \(status.names.joined(separator: " and ")): a temperature has one site")
            }
        default:
            break
        }
        reading.annotations.status = status
        if let user {
            guard family.traits.carriesUserID else {
                throw FleetError(
                    path: path + ".user",
                    message: "is for a blood pressure monitor or a scale: \(family.aDevice) sends no user ID")
            }
            reading.annotations.userIndex = user
        }
    }
}

extension ReadingStatus {
    /// The bit of the status named `name`, one of `ReadingStatus.names`: where a profile's run of statuses starts.
    static func firstBit(_ name: String) -> UInt64 {
        guard let bit = names.firstIndex(of: name) else { preconditionFailure("\(name) is not a status") }
        return UInt64(bit)
    }
}

extension BloodPressureMeasurementStatus {
    /// The Measurement Status that sends the blood pressure statuses of `status`; `nil` when it has none.
    init?(_ status: ReadingStatus) {
        var sent: Self = []
        let bits: [(ReadingStatus, Self)] = [
            (.bodyMovement, .bodyMovementDetected), (.cuffTooLoose, .cuffTooLoose),
            (.irregularPulse, .irregularPulseDetected), (.improperPosition, .improperMeasurementPosition),
        ]
        for (name, bit) in bits where status.contains(name) { sent.insert(bit) }
        if status.contains(.pulseRateTooHigh) { sent.pulseRateRange = .exceedsUpperLimit }
        if status.contains(.pulseRateTooLow) { sent.pulseRateRange = .belowLowerLimit }
        guard !status.intersection(DeviceFamily.bloodPressure.scriptableStatus.names).isEmpty else { return nil }
        self = sent
    }
}

extension SpecialFloatValue {
    /// The SFLOAT and FLOAT special value of the name `value` has.
    init(_ value: SpecialValue) {
        switch value {
        case .nan: self = .nan
        case .nres: self = .nres
        case .positiveInfinity: self = .positiveInfinity
        case .negativeInfinity: self = .negativeInfinity
        case .reserved: self = .reserved
        }
    }
}
