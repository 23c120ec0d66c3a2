import Foundation
import LayeredProtocol
import ShareVitalSigns
import VitalCore
import VitalDevices
import VitalStore
import WelltoryDDS

/// The ShareVitalSigns shared board, as the platform keeps it (a private file on Linux).
public protocol SharedBoard: Sendable {
    /// Where the board is, for messages.
    var location: String { get }
    /// The board, or `nil` when no request was ever written.
    func read() throws -> Board?
    /// Puts `board` in place of the current one, whole or not at all.
    func write(_ board: Board) throws
}

/// The DDS sources the hub answers, each with the one callback URL registered for it.
public protocol DDSRegistry: Sendable {
    /// The callback URL registered for `source`, or `nil` when the source is not registered.
    func callback(for source: String) throws -> String?
}

/// What the provider protocols need beside the engine's shared parts: ShareVitalSigns's board and the DDS
/// sources. A hub without one answers no request of that protocol.
public struct ProviderSettings: Sendable {
    public var board: (any SharedBoard)?
    public var ddsSources: (any DDSRegistry)?

    public init(board: (any SharedBoard)? = nil, ddsSources: (any DDSRegistry)? = nil) {
        self.board = board
        self.ddsSources = ddsSources
    }
}

/// The protocols the hub answers besides the layered one, as the delivery journal records their answers: its
/// `action` is `100` or `101`, beside the layered cmds `0`–`6`.
public enum ProviderProtocol: Int, CaseIterable, Sendable {
    case shareVitalSigns = 100
    case welltoryDDS = 101

    /// The protocol of request `url`, or `nil` for a layered request (or a URL of no protocol).
    public init?(of url: String) {
        if url.lowercased().hasPrefix(DDSAdapter.prefix) {
            self = .welltoryDDS
        } else if let colon = url.firstIndex(of: ":"), VitalSign(scheme: String(url[..<colon])) != nil {
            self = .shareVitalSigns
        } else {
            return nil
        }
    }
}

/// ShareVitalSigns as the engine answers it: the requester must be a whitelisted caller; the signs asked for are
/// measured on devices of the home (blood pressure for BPSYS and BPDIA, the pulse oximeter for HR and SPO2, the
/// thermometer for TEMP); the answer goes on the shared board, sealed with the requester's key when the request is
/// sealed, and the requester is opened at `<requester>://`.
public enum SVSAdapter {
    /// The signs VitalBridge supplies, and the family of devices each group is measured on.
    static let groups: [(signs: VitalSign, family: DeviceFamily)] = [
        ([.bpSys, .bpDia], .bloodPressure), ([.hr, .spo2], .pulseOximeter), (.temp, .thermometer),
    ]

    /// The signs VitalBridge supplies: HR and SPO2 from a pulse oximeter, TEMP from a thermometer, BPSYS and BPDIA
    /// from a blood pressure monitor.
    public static let supplied: VitalSign = groups.reduce(VitalSign()) { $0.union($1.signs) }
}

/// Welltory DDS as the engine answers it: a registered source whose `callback` is exactly the one registered gets
/// the stress score and colour (`DDSStress`), RMSSD, SDNN and total power of RR intervals recorded on a heart-rate
/// sensor of the home.
enum DDSAdapter {
    /// The link VitalBridge answers.
    static let link = "vitalbridge://dds/measurement"
    /// What every DDS link to VitalBridge starts with.
    static let prefix = "vitalbridge://dds/"
    /// How long a recording lasts when the request does not say: the Task Force's short-term recording.
    static let defaultSeconds = 300
    static let seconds = 120...86_400

    /// The journal's caller for a DDS source: sources are not whitelisted apps, and `dds:` keeps them apart.
    static func journalCaller(_ source: String) -> String { "dds:" + source }

    /// A DDS failure for a provider measurement that gave no reading.
    static func failure(_ kind: ProviderFailure.Kind) -> DDSFailure {
        switch kind {
        case .noDevice: .noDevice
        case .severalDevices: .severalDevices
        case .cancelled: .cancelled
        case .device: .deviceFailed
        case .store: .store
        }
    }
}

extension Bridge {
    /// Answers a ShareVitalSigns request `url` opened by `caller` (when the platform names it).
    func answerShareVitalSigns(_ url: String, caller: String?) async -> HubOutcome {
        let request: ProviderURL
        do {
            request = try ProviderURL(parsing: url.trimmingCharacters(in: .whitespaces))
        } catch {
            return .refused("not a ShareVitalSigns request: \(error)")
        }
        if let caller, let named = request.requester, caller != named {
            return .noCallback("the URL names the requester \(named), but \(caller) opened it")
        }
        guard let requester = caller ?? request.requester, whitelist.entries[requester] != nil else {
            return .noCallback("\(caller ?? request.requester ?? "an unnamed requester") is not a whitelisted caller")
        }
        guard let boardStore = providers.board else { return .refused("this hub keeps no ShareVitalSigns board") }
        var board: Board
        do {
            guard let current = try boardStore.read() else {
                return .refused("no request on the shared board \(boardStore.location)")
            }
            board = current
        } catch {
            return .refused("\(error)")
        }
        guard board.sign == request.sign else {
            return .refused("the board asks for \(board.sign), the URL for \(request.sign)")
        }
        guard board.isSealed == (request.key != nil) else {
            return .refused(
                board.isSealed ? "a sealed request needs its svskey" : "the request on the board is plain: no svskey")
        }
        let owner = nextOwner()
        let (answer, readings, note) = await measureSigns(board.sign, for: requester, owner: owner)
        do {
            if let key = request.key {
                board.sealed = try SealedAnswer.seal(answer, key: key, for: board)
            } else {
                board.answer = answer
            }
            try boardStore.write(board)
        } catch {
            try? delivery.store.journal.releaseReservations(of: owner)
            return .refused("\(error)")
        }
        return await delivery.deliverAnswer(
            "\(requester)://", to: requester, carrying: readings, as: .shareVitalSigns, succeeded: answer.success,
            note: note, owner: owner)
    }

    /// The answer for `signs`: each sign asked for from its device's live reading, with the quality of what the
    /// device reported with it (`Quality(of:)`, whose rules the ShareVitalSigns article tabulates); a failure answer
    /// (with why) when a sign cannot be supplied or its measurement fails. The readings it carries are reserved
    /// for `requester`.
    func measureSigns(_ signs: VitalSign, for requester: String, owner: ReservationOwner) async
        -> (Answer, [StoredReading], note: String?)
    {
        guard SVSAdapter.supplied.provides(signs) else {
            return (.failure, [], "VitalBridge cannot supply \(signs): a failure answer")
        }
        var values: [Int: Answer.Entry] = [:]
        var readings: [StoredReading] = []
        for group in SVSAdapter.groups where !signs.isDisjoint(with: group.signs) {
            let stored: StoredReading
            do {
                stored = try await stages.measureLive(
                    ProviderMeasurement(family: group.family), caller: requester, owner: owner)
            } catch {
                return (.failure, [], "\(error): a failure answer")
            }
            readings.append(stored)
            guard let answered = Self.svsValues(of: stored.reading) else {
                return (.failure, [], "the \(group.family.traits.deviceName) answered another kind of reading")
            }
            values.merge(answered) { _, new in new }
        }
        // only the signs asked for
        let asked = Set(signs.basicSigns.compactMap(\.exponent))
        return (Answer(success: true, values: values.filter { asked.contains($0.key) }), readings, nil)
    }

    /// The ShareVitalSigns values of a live `reading`, by sign exponent (heart rate 0, SpO2 2, temperature 3,
    /// systolic 4, diastolic 5), each with the reading's quality (`Quality(of:)`: 100 less what the device's
    /// statuses and perfusion index say against it); `nil` for a kind SVS has no sign for. A value the device could
    /// not measure (it sent a special value: NaN, ±INF…) is left out, never answered as a number.
    static func svsValues(of reading: Reading) -> [Int: Answer.Entry]? {
        guard let quality = Quality(of: reading) else { return nil }
        let missing = reading.unavailableFields.map(\.field)
        var values: [Int: Answer.Entry] = [:]
        for (sign, field, answer) in svsSigns where !missing.contains(where: { $0 === field }) {
            guard let exponent = sign.exponent, let value = field.value(in: reading).flatMap(answer) else { continue }
            values[exponent] = .init(value, quality: quality)
        }
        return values
    }

    /// Each sign VitalBridge answers: the reading field it is, and its value as SVS writes it (pressures in whole
    /// mmHg, the temperature in °C with one decimal).
    private static let svsSigns:
        [(sign: VitalSign, field: ReadingField, answer: @Sendable (FieldValue) -> SignValue?)] = [
            (.bpSys, .systolic, wholeNumber), (.bpDia, .diastolic, wholeNumber), (.hr, .oximetryPulse, wholeNumber),
            (.spo2, .oxygenSaturation, wholeNumber),
            (
                .temp, .bodyTemperature,
                { if case .number(let celsius) = $0 { .text(String(format: "%.1f", celsius)) } else { nil } }
            ),
        ]

    private static func wholeNumber(_ value: FieldValue) -> SignValue? {
        switch value {
        case .number(let number): .number(Int(number.rounded()))
        case .integer(let integer): .number(integer)
        default: nil
        }
    }

    /// Answers a Welltory DDS request `url`: VitalBridge's own parameters are `duration` (seconds of recording,
    /// 120 to 86400, 300 when absent) and `mac` (which sensor); every other one is echoed back.
    func answerDDS(_ url: String) async -> HubOutcome {
        guard url.split(separator: "?", maxSplits: 1).first.map(String.init)?.lowercased() == DDSAdapter.link else {
            return .noCallback("\(url.prefix(200)) is not \(DDSAdapter.link)")
        }
        let request: DDSRequest
        do {
            request = try DDSRequest(link: url)
        } catch {
            return .noCallback("the DDS request is not one: \(error)")
        }
        let source = request.source.prefix(100)
        let registered: String?
        do {
            registered = try providers.ddsSources?.callback(for: request.source)
        } catch {
            return .refused("cannot use the home folder: \(error)")
        }
        guard let registered else { return .noCallback("\(source) is not a registered DDS source") }
        guard registered == request.callback else {
            return .noCallback("the callback is not the one registered for \(source)")
        }
        var need = ProviderMeasurement(
            family: .heartRateSensor, options: MeasureOptions(recordingSeconds: DDSAdapter.defaultSeconds))
        var echoed: [(name: String, value: String)] = []
        for (name, value) in request.extra {
            switch name {
            case "duration":
                guard let number = Int(value), DDSAdapter.seconds.contains(number) else {
                    return .refused(
                        "duration must be a whole number of seconds from 120 to 86400, not '\(value.prefix(40))'")
                }
                need.options.recordingSeconds = number
            case "mac":
                guard let mac = MACAddress(value) else { return .refused("mac must be 12 hexadecimal digits") }
                need.device = mac
            default:
                echoed.append((name, value))
            }
        }
        let caller = DDSAdapter.journalCaller(request.source)
        let owner = nextOwner()
        func fail(_ failure: DDSFailure, _ why: String) async -> HubOutcome {
            let url = DDSResult(failure: failure, extra: echoed).callbackURL(on: request.callback)
            return await delivery.deliverAnswer(
                url, to: caller, carrying: [], as: .welltoryDDS, succeeded: false, note: why, owner: owner)
        }
        let stored: StoredReading
        do {
            stored = try await stages.measureLive(need, caller: caller, owner: owner)
        } catch {
            return await fail(DDSAdapter.failure(error.kind), "\(error)")
        }
        guard case .heartRate(let reading) = stored.reading else {
            return await fail(.deviceFailed, "the heart-rate sensor answered another kind of reading")
        }
        let figures = HRVFigures(rr: reading.rrIntervals)
        guard let rmssd = figures.rmssd, let sdnn = figures.sdnn, let power = figures.power else {
            return await fail(
                .tooFewIntervals, "the recording has too few accepted intervals (\(figures.accepted)) for HRV")
        }
        func tenth(_ value: Double) -> Double { (value * 10).rounded() / 10 }
        let (stress, stressColour) = DDSStress.score(figures.stressIndex)
        let result = DDSResult(
            stress: stress, rmssd: tenth(rmssd), sdnn: tenth(sdnn), power: tenth(power), stressColour: stressColour,
            extra: echoed)
        return await delivery.deliverAnswer(
            result.callbackURL(on: request.callback), to: caller, carrying: [stored], as: .welltoryDDS,
            succeeded: true, note: nil, owner: owner)
    }
}
