import VitalCore
import VitalDevices

/// The settings a simulated band keeps, as a real one does: each as last written, `nil` (or no alarm) for one never
/// written since the band left the factory or was reset. The band answers VitalBridge's getters from them.
public struct BandSettings: Hashable, Sendable {
    /// The hardware options; `nil` answers the model's factory options (`BandHardwareOptions.factory(for:)`).
    public var options: BandHardwareOptions?
    /// The alarms written, at most one per id, by id.
    public var alarms: [BandAlarm]
    /// The sedentary reminder; `nil` answers `BandSedentaryReminder.factory`.
    public var sedentary: BandSedentaryReminder?
    /// The wearer; `nil` answers that none is set.
    public var personalInfo: BandPersonalInfo?
    /// The active sports; `nil` answers that none are set.
    public var sportTargets: BandSportTargets?

    public init(
        options: BandHardwareOptions? = nil, alarms: [BandAlarm] = [], sedentary: BandSedentaryReminder? = nil,
        personalInfo: BandPersonalInfo? = nil, sportTargets: BandSportTargets? = nil
    ) {
        self.options = options
        self.alarms = alarms.sorted { $0.id < $1.id }
        self.sedentary = sedentary
        self.personalInfo = personalInfo
        self.sportTargets = sportTargets
    }

    /// Keeps the setting `command` writes; `false` for one the band of `model` refuses (a background colour on a
    /// model without the choice, or none on the one with it), keeping nothing then. Other commands change nothing.
    mutating func apply(_ command: BandCommand, model: DeviceModel) -> Bool {
        switch command {
        case .setHardwareOptions(let written):
            guard (written.whiteBackground != nil) == BandHardwareOptions.hasBackgroundChoice(model) else {
                return false
            }
            options = written
        case .setAlarm(let alarm):
            alarms.removeAll { $0.id == alarm.id }
            alarms.append(alarm)
            alarms.sort { $0.id < $1.id }
        case .setSedentary(let reminder): sedentary = reminder
        case .setPersonalInfo(let info): personalInfo = info
        case .setSportTargets(let targets): sportTargets = targets
        default: break
        }
        return true
    }

    /// The messages that answer the getter `command` on a band of `model`, before its result; none for another
    /// command.
    func answers(to command: BandCommand, model: DeviceModel) -> [BandMessage] {
        switch command {
        case .getHardwareOptions: [.hardwareOptions(options ?? .factory(for: model))]
        case .getAlarms: (0..<8).map { id in .alarm(id: id, alarms.first { $0.id == id }) }
        case .getSedentaryReminder: [.sedentaryReminder(sedentary ?? .factory)]
        case .getPersonalInfo: [.personalInfo(personalInfo)]
        case .getSportTargets: [.sportTargets(sportTargets)]
        default: []
        }
    }
}

// MARK: - Saved with the world's state

extension BandSettings {
    /// The settings of a saved band state's `settings` object: each setting as the command that writes it, in
    /// hexadecimal (`options`, `sedentary`, `personalInfo`, `sportTargets`, and `alarms`, an array), each read back
    /// with the codec's rules; a member absent is a setting never written (a state saved before the band kept its
    /// settings has none).
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        func command(_ key: String) throws(FleetError) -> BandCommand? {
            try fields.string(key).map { text throws(FleetError) in
                try Self.command(hex: text, at: fields.path(of: key))
            }
        }
        func wrong(_ key: String) -> FleetError {
            FleetError(path: fields.path(of: key), message: "is not the command that writes it")
        }
        var settings = BandSettings()
        if let written = try command("options") {
            guard case .setHardwareOptions(let options) = written else { throw wrong("options") }
            settings.options = options
        }
        if let written = try command("sedentary") {
            guard case .setSedentary(let reminder) = written else { throw wrong("sedentary") }
            settings.sedentary = reminder
        }
        if let written = try command("personalInfo") {
            guard case .setPersonalInfo(let info) = written else { throw wrong("personalInfo") }
            settings.personalInfo = info
        }
        if let written = try command("sportTargets") {
            guard case .setSportTargets(let targets) = written else { throw wrong("sportTargets") }
            settings.sportTargets = targets
        }
        let alarms = try fields.array("alarms") { element, path throws(FleetError) -> BandAlarm in
            guard case .string(let text) = element,
                case .setAlarm(let alarm) = try Self.command(hex: text, at: path)
            else { throw FleetError(path: path, message: "is not the command that writes an alarm") }
            return alarm
        }
        for alarm in alarms ?? [] {
            guard !settings.alarms.contains(where: { $0.id == alarm.id }) else {
                throw FleetError(path: fields.path(of: "alarms"), message: "has alarm \(alarm.id) twice")
            }
            settings.alarms.append(alarm)
        }
        settings.alarms.sort { $0.id < $1.id }
        try fields.finish()
        self = settings
    }

    /// The `settings` object of a saved band state; `nil` when nothing was ever written.
    var jsonValue: JSON? {
        guard self != BandSettings() else { return nil }
        func hex(_ command: BandCommand) -> JSON { .string(BandState.hex(command.encoded)) }
        var members = JSONMembers()
        members["options"] = options.map { hex(.setHardwareOptions($0)) }
        members["alarms"] = alarms.isEmpty ? nil : .array(alarms.map { hex(.setAlarm($0)) })
        members["sedentary"] = sedentary.map { hex(.setSedentary($0)) }
        members["personalInfo"] = personalInfo.map { hex(.setPersonalInfo($0)) }
        members["sportTargets"] = sportTargets.map { hex(.setSportTargets($0)) }
        return members.object
    }

    /// The command saved as `text`, hexadecimal.
    private static func command(hex text: String, at path: String) throws(FleetError) -> BandCommand {
        guard let bytes = BandState.bytes(hex: text) else {
            throw FleetError(path: path, message: "is not hexadecimal")
        }
        do {
            return try BandCommand(bytes: bytes)
        } catch {
            throw FleetError(path: path, message: "is not a band command: \(error)")
        }
    }
}
