import VitalCore

extension DeviceInfo {
    /// What `device info` and `band info` print of a device of `model`:
    /// `PO3 (devicemodel 300), serial …, firmware …, battery 80%`, `not reported` for what the device does not have.
    public func line(model: DeviceModel) -> String {
        "\(model.name) (devicemodel \(model.rawValue)), serial \(serialNumber ?? "not reported"), "
            + "firmware \(firmwareRevision ?? "not reported"), "
            + "battery \(batteryLevel.map { "\($0)%" } ?? "not reported")"
    }
}

extension LiveSample {
    /// The sample as a compact JSON object, keys sorted, with the PO3 SDK's keys (`spo2`, `bpm`, `pi`, `wave`),
    /// `cuffPressure` and `rr` (RR intervals in ms, to a tenth): what `device live` prints a line each. Written by
    /// VitalCore's JSON writer (no encoder is set up for each of a wave's samples).
    public var json: String {
        var members: [(key: String, value: JSON)] = []
        switch self {
        case .oximetry(let spO2, let pulseRate, let perfusionIndex):
            if let pulseRate { members.append(("bpm", .number(pulseRate))) }
            if let perfusionIndex { members.append(("pi", .number(perfusionIndex))) }
            if let spO2 { members.append(("spo2", .number(spO2))) }
        case .pulseWave(let wave): members.append(("wave", .number(wave)))
        case .cuffPressure(let pressure): members.append(("cuffPressure", .number(pressure)))
        case .heartRate(let rate, let intervals):
            if let rate { members.append(("bpm", .number(rate))) }
            members.append(("rr", .array(intervals.map { .number(($0 * 10).rounded() / 10) })))
        }
        return String(decoding: JSON.object(members).serialized(pretty: false), as: UTF8.self)
    }
}

extension Advertisement {
    /// The Bluetooth SIG health services a scan for health devices listens for (`vitalbridge scan`), with their
    /// profiles' names.
    public static let healthProfiles: [(service: UInt16, name: String)] = [
        (0x1810, "Blood Pressure"), (0x1808, "Glucose"), (0x181D, "Weight Scale"), (0x181B, "Body Composition"),
        (0x1809, "Health Thermometer"), (0x1822, "Pulse Oximeter"), (0x180D, "Heart Rate"),
    ]

    /// The health profiles the device advertises, in ``healthProfiles``' order, as `scan` lists them:
    /// `Weight Scale (0x181D), Body Composition (0x181B)`.
    public var healthProfileNames: String {
        Self.healthProfiles.filter { services.contains($0.service) }
            .map { "\($0.name) (0x\(String($0.service, radix: 16, uppercase: true)))" }.joined(separator: ", ")
    }
}
