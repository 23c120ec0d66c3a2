import LayeredProtocol
import VitalCore

/// A value with its unit, exactly as a callback writes it (`120` mmHg, `5.6` mmol/L, `154.3` lb).
public struct Quantity: Hashable, Sendable, CustomStringConvertible {
    public var value: FixedDecimal
    public var unit: VitalUnit

    public init(_ value: FixedDecimal, _ unit: VitalUnit) {
        self.value = value
        self.unit = unit
    }

    public var description: String { "\(value) \(unit)" }
}

/// One reading of a callback, typed, with its values in the unit the request asked for.
public struct ReceivedReading: Hashable, Sendable, CustomStringConvertible {
    /// Whether the request took the reading, or it was stored before (in the device's memory, or by the hub for
    /// this caller).
    public enum Origin: String, Hashable, Sendable {
        /// The live measurement of this request.
        case measured
        /// A reading stored before: a synced record, or one the hub still had for the caller.
        case stored
    }

    /// What the reading measured. A value the device could not measure (named in ``ReceivedReading/unavailable``)
    /// is `nil`; any other value the kind always has is there, or the callback is refused.
    public enum Value: Hashable, Sendable {
        /// Blood pressure; the pulse and the arrhythmia flag when the monitor reports them.
        case bloodPressure(systolic: Quantity?, diastolic: Quantity?, heartRate: Int?, arrhythmia: Bool?)
        /// Blood glucose.
        case glucose(Quantity?)
        /// Body weight, with the body composition a composition scale adds.
        case weight(Quantity?, composition: ReceivedComposition?)
        /// SpO2 in percent and the pulse rate; the perfusion index when the oximeter reports it.
        case oximetry(oxygenSaturation: Int?, heartRate: Int?, perfusionIndex: FixedDecimal?)
        /// Body temperature.
        case temperature(Quantity?)
        /// A day of activity (`yyyy-MM-dd`): steps, calories, and the distance when the device reports one. The
        /// rest of the day (sleep, swimming, heart rate, sports) is ``ReceivedReading/day``.
        case activity(day: String, steps: Int, calories: Int, distance: Quantity?)
        /// A heart rate in beats per minute.
        case heartRate(Int?)
    }

    public var origin: Origin
    public var value: Value
    /// When it was measured; `nil` for an activity day, which is dated by ``Value/activity(day:steps:calories:distance:)``.
    public var measuredAt: Timestamp?
    /// The result object as the callback sent it.
    public var object: ResultObject
    /// The statuses the device reported with the reading (`flags`), those this version knows by name.
    public var status: ReadingStatus
    /// Every name `flags` gave, known or not, in order.
    public var flags: [String]
    /// The values the device could not measure (`unavailable`), by result key, with the special value it sent
    /// (`systolic` → NaN). A special value this version does not know is left out.
    public var unavailable: [ResultKey: SpecialValue]
    /// The rest of an activity day: its sleep, swimming, heart rate and sports; `nil` for a reading of another kind.
    public var day: ReceivedDay?

    public var description: String {
        let time = measuredAt.map { " at \($0)" } ?? ""
        let said = flags.isEmpty && unavailable.isEmpty ? "" : " [\(saidDescription)]"
        func text(_ value: (some CustomStringConvertible)?, _ key: ResultKey) -> String {
            value.map { "\($0)" } ?? unavailable[key].map { "\($0)" } ?? "-"
        }
        switch value {
        case .bloodPressure(let systolic, let diastolic, let heartRate, let arrhythmia):
            let pulse = heartRate.map { ", pulse \($0)/min" } ?? ""
            let flag = arrhythmia.map { $0 ? ", irregular heartbeat" : "" } ?? ""
            let unit = (systolic ?? diastolic).map { " \($0.unit)" } ?? ""
            return "blood pressure \(text(systolic?.value, .systolic))/\(text(diastolic?.value, .diastolic))\(unit)"
                + "\(pulse)\(flag)\(time)\(said)"
        case .glucose(let glucose): return "glucose \(text(glucose, .bloodGlucose))\(time)\(said)"
        case .weight(let weight, let composition):
            return "weight \(text(weight, .weight))\(composition?.bodyFat.map { ", body fat \($0) %" } ?? "")"
                + "\(time)\(said)"
        case .oximetry(let saturation, let heartRate, let perfusion):
            return "SpO2 \(text(saturation, .oxygenSaturation)) %, pulse \(text(heartRate, .heartRate))/min"
                + "\(perfusion.map { ", PI \($0) %" } ?? "")\(time)\(said)"
        case .temperature(let temperature): return "temperature \(text(temperature, .temperature))\(time)\(said)"
        case .activity(let date, let steps, let calories, let distance):
            let rest = day.map { $0.description.isEmpty ? "" : "; \($0)" } ?? ""
            return "activity \(date): \(steps) steps, \(calories) kcal\(distance.map { ", \($0)" } ?? "")\(rest)\(said)"
        case .heartRate(let rate): return "heart rate \(text(rate, .heartRate))/min\(time)\(said)"
        }
    }

    /// The flags, then each unavailable value as `key=special`: `bodyMovement, systolic=NaN`.
    private var saidDescription: String {
        (flags + unavailable.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key)=\($0.value)" })
            .joined(separator: ", ")
    }
}

/// What an activity day says beyond its steps, calories and distance: an activity monitor's sleep and swimming, a
/// band's sleep phases, heart rate and sports. A member the callback does not carry is `nil` (an unmeasured one is
/// in ``ReceivedReading/unavailable``).
///
/// ```swift
/// // {"time":"2026-11-20","activedata":{…},"sleepdata":{"sleeptime":420,"sleepefficiency":85},"swimdata":{…}}
/// reading.day?.sleep?.minutes   // 420
/// reading.day?.description      // sleep 420 min (efficiency 85 %); swim 30 min, 210 kcal
/// ```
public struct ReceivedDay: Hashable, Sendable, CustomStringConvertible {
    /// `sleepdata`: minutes asleep and the efficiency (0–100); a band's minutes of deep and light sleep and awake.
    public struct Sleep: Hashable, Sendable {
        public var minutes: Int?
        public var efficiency: Int?
        public var deep: Int?
        public var light: Int?
        public var awake: Int?
    }

    /// `swimdata`: minutes swum and the calories.
    public struct Swim: Hashable, Sendable {
        public var minutes: Int?
        public var calories: Int?
    }

    /// `heartratedata`: a band's lowest, average and highest rate (beats per minute) over its minutes with a rate.
    public struct HeartRate: Hashable, Sendable {
        public var minimum: Int?
        public var average: Int?
        public var maximum: Int?
        public var minutes: Int?
    }

    /// One of `sportdata`: a band's finished sport, by its sport code, from `start` to `end` (`HH:mm:ss`), with
    /// the steps and distance (in the request's unit) the hub sends, and the band's `detail_data` when it sent one.
    public struct Sport: Hashable, Sendable {
        /// `detail`: the band's `detail_data` of a sport, those members it sent.
        public struct Detail: Hashable, Sendable {
            /// Repetitions (sit-ups, push-ups, rope skips, pull-ups).
            public var count: Int?
            /// The band's own measure, without a unit.
            public var activity: Int?
            /// In the request's unit, km by default.
            public var distance: FixedDecimal?
        }

        public var type: Int
        public var start: String
        public var end: String
        public var calories: Int?
        public var steps: Int?
        /// In the request's unit, km by default.
        public var distance: FixedDecimal?
        public var detail: Detail?
    }

    /// One of `activedata.sports`: a band's totals of one sport over the day.
    public struct SportTotal: Hashable, Sendable {
        /// The band's sport code (1 is walking).
        public var type: Int
        /// Steps over the day.
        public var steps: Int?
        /// Kilocalories over the day.
        public var calories: Int?
        /// In the request's unit, km by default.
        public var distance: FixedDecimal?
        /// Repetitions, when the band counted them.
        public var count: Int?
    }

    /// One of `sleepdata.segments`: a segment of a band's night, as the hub keeps it (type 1–6, minutes of the
    /// day).
    public typealias SleepSegment = BandDay.SleepSegment

    public var sleep: Sleep?
    public var swim: Swim?
    public var heartRate: HeartRate?
    /// The sports, in the callback's order; empty when it lists none.
    public var sports: [Sport]
    /// `activedata.sports`, in the callback's order; empty when it lists none.
    public var sportTotals: [SportTotal] = []
    /// `sleepdata.segments`, in the callback's order; empty when it lists none.
    public var sleepSegments: [SleepSegment] = []
    /// `leftout`: the lists the hub left out of a day too large for one callback (`sleepdata.segments`,
    /// `activedata.sports`); empty when it left none out.
    public var leftOut: [String] = []

    /// Each part the day has, `; `-separated: `sleep 420 min (efficiency 85 %, deep 130, light 250, awake 40 min);
    /// swim 30 min, 210 kcal; heart rate 52/68/131 /min (min/avg/max) over 900 min; sports 0x01 07:10:00–07:40:00
    /// 120 kcal, 0x88 18:00:00–18:45:00 310 kcal; sport totals 0x01 8421 steps, 312 kcal, distance 6.12, 0x02 0 steps,
    /// 80 kcal, distance 0.00, 220 reps; sleep segments start 00:40, light 00:40–01:20, end 06:40, placed 06:40–06:43`.
    /// Empty when the day has none of them.
    public var description: String {
        var parts: [String] = []
        func join(_ items: [String?]) -> String { items.compactMap { $0 }.joined(separator: ", ") }
        if let sleep {
            let phases = join([
                sleep.efficiency.map { "efficiency \($0) %" }, sleep.deep.map { "deep \($0)" },
                sleep.light.map { "light \($0)" }, sleep.awake.map { "awake \($0)" },
            ])
            let unit = sleep.deep != nil || sleep.light != nil || sleep.awake != nil ? " min" : ""
            parts.append(
                "sleep" + (sleep.minutes.map { " \($0) min" } ?? "") + (phases.isEmpty ? "" : " (\(phases)\(unit))"))
        }
        if let swim {
            let said = join([swim.minutes.map { "\($0) min" }, swim.calories.map { "\($0) kcal" }])
            parts.append("swim" + (said.isEmpty ? "" : " \(said)"))
        }
        if let rate = heartRate {
            let values = [rate.minimum, rate.average, rate.maximum].map { $0.map(String.init) ?? "-" }
            parts.append(
                "heart rate \(values.joined(separator: "/")) /min (min/avg/max)"
                    + (rate.minutes.map { " over \($0) min" } ?? ""))
        }
        if !sports.isEmpty {
            let listed = sports.map { sport in
                let code = String(sport.type, radix: 16, uppercase: true)
                return "0x\(code.count < 2 ? "0" + code : code) \(sport.start)–\(sport.end)"
                    + (sport.calories.map { " \($0) kcal" } ?? "") + (sport.steps.map { " \($0) steps" } ?? "")
                    + (sport.detail?.count.map { " \($0) reps" } ?? "")
            }
            parts.append("sports " + listed.joined(separator: ", "))
        }
        if !sportTotals.isEmpty {
            let listed = sportTotals.map { total in
                let code = String(total.type, radix: 16, uppercase: true)
                let said = join([
                    total.steps.map { "\($0) steps" }, total.calories.map { "\($0) kcal" },
                    total.distance.map { "distance \($0)" }, total.count.map { "\($0) reps" },
                ])
                return "0x\(code.count < 2 ? "0" + code : code)" + (said.isEmpty ? "" : " " + said)
            }
            parts.append("sport totals " + listed.joined(separator: ", "))
        }
        if !sleepSegments.isEmpty {
            parts.append("sleep segments " + sleepSegments.map { $0.text() }.joined(separator: ", "))
        }
        if !leftOut.isEmpty { parts.append("left out " + leftOut.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}

/// The body composition a scale sent with a weight; masses in the weight's unit.
public struct ReceivedComposition: Hashable, Sendable {
    public var bodyFat: FixedDecimal?
    public var musclePercentage: FixedDecimal?
    public var muscleMass: Quantity?
    public var fatFreeMass: Quantity?
    public var softLeanMass: Quantity?
    public var bodyWaterMass: Quantity?
    /// Basal metabolism in kJ.
    public var basalMetabolism: Int?
    /// Impedance in ohms.
    public var impedance: FixedDecimal?
}

/// A device error decoded from an `ERROR-<devicemodel>-<code>` reason.
public struct DeviceFailure: Hashable, Sendable, CustomStringConvertible {
    public var model: DeviceModel
    /// The device family's numeric error code.
    public var code: Int

    public init(model: DeviceModel, code: Int) {
        self.model = model
        self.code = code
    }

    public var description: String { "\(model) error \(code)" }

    /// The PO3's error, read as the PO3 document's `PO3ErrorID` and the iHealth SDK headers both read it; `nil` for
    /// another model or a code neither defines.
    ///
    /// The hub answers a failed user authentication with the headers' value, 111 (`ERROR-300-111`). The document's
    /// enum counts `PO3UserInvalidate` eighth, as 8, a code the headers leave unused: so 8 is read as the
    /// authentication failure too, and a caller written against either reading gets the same answer.
    public var po3Error: PO3Error? {
        guard model == .po3 else { return nil }
        return code == 8 ? .userAuthentication : PO3Error(rawValue: code)
    }
}

/// The PO3's error IDs (`PO3ErrorID` of the PO3 SDK document, with the SDK headers' 111 for the authentication).
public enum PO3Error: Int, Hashable, Sendable, CaseIterable {
    /// Bluetooth communication error.
    case communication = 0
    /// Flash (data) access error.
    case flashAccess = 1
    /// Irregular hardware error.
    case hardware = 2
    /// The SpO2 or pulse rate is beyond the measurement range.
    case outOfRange = 3
    /// Unknown interference detected.
    case interference = 4
    /// Sending a command failed.
    case sendFailed = 5
    /// The device disconnected.
    case disconnected = 6
    /// No data (`PO3DataZero`): the hub never sends it, an empty history is a success with `result=[]`.
    case noData = 7
    /// User authentication failed (`PO3UserInvalidate`): 111 as the hub sends it, 8 in the document's enum.
    case userAuthentication = 111
}

/// A callback as the caller reads it: each stage's outcome, the device, the readings typed in the requested unit,
/// how many readings the hub still holds, and why it failed.
///
/// Everything it holds is read from ``callback`` once, when it is parsed, and cannot change after.
///
/// ```swift
/// let response = try LayeredResponse(parsing: url)
/// if response.succeeded {
///     for reading in response.readings { print(reading) }   // blood pressure 120/80 mmHg at …
/// } else if let failure = response.deviceFailure {
///     print("the device reported \(failure)")                // PO3 error 3
/// }
/// ```
public struct LayeredResponse: Hashable, Sendable {
    /// The callback as parsed.
    public let callback: LayeredCallback
    /// The correlation id the request carried, echoed by the hub.
    public let requestID: String?
    /// The request's `cmd`, when the callback echoes one the protocol defines.
    public let action: LayeredAction?
    /// The request's `devicemodel`, when the callback echoes a known one.
    public let model: DeviceModel?
    /// How each stage of the action ended, in stage order; empty when the action is unknown.
    public var stages: [(stage: Stage, outcome: StageOutcome)] {
        guard let action, let outcomes = callback.status.outcomes(for: action) else { return [] }
        return Array(zip(action.stages, outcomes))
    }
    /// The readings, the measured one first, each in the unit the request asked for.
    public let readings: [ReceivedReading]
    /// How many readings the hub still holds for the caller (ask again to get them); `0` when it says none.
    public var remaining: Int { callback.remaining ?? 0 }
    /// Why the action failed or was cancelled.
    public var reason: LayeredReason? { callback.reason }
    /// The device error the reason names, when it is one (`ERROR-300-3` → PO3 error 3).
    public var deviceFailure: DeviceFailure? {
        callback.reason?.deviceError.map { DeviceFailure(model: $0.model, code: $0.code) }
    }
    /// The device, when the hub knows which.
    public var mac: MACAddress? { callback.mac }
    /// Whether every stage succeeded.
    public var succeeded: Bool { !stages.isEmpty && stages.allSatisfy { $0.outcome == .success } }
    /// Whether the user cancelled a stage.
    public var cancelled: Bool { stages.contains { $0.outcome == .cancel } }

    /// The outcome of `stage`, or `nil` if the action has no such stage.
    public func outcome(of stage: Stage) -> StageOutcome? {
        stages.first { $0.stage == stage }?.outcome
    }

    /// Parses the callback `url` a caller received.
    ///
    /// - Throws: a `LayeredError` naming the parameter at fault: whatever `LayeredCallback(parsing:)` refuses,
    ///   a `status` the echoed `cmd` cannot answer, or a `result` object without the values its device's kind
    ///   always has (`systolic`, `weight`, `measured_at`, …).
    public init(parsing url: String) throws(LayeredError) {
        let callback = try LayeredCallback(parsing: url)
        self.callback = callback
        func echoed(_ key: String) -> String? { callback.echo.first { $0.key == key }?.decodedValue }
        requestID = echoed("requestid")
        action = echoed("cmd").flatMap { Int($0) }.flatMap(LayeredAction.init(rawValue:))
        model = echoed("devicemodel").flatMap { Int($0) }.flatMap(DeviceModel.init(rawValue:))
        if let action, callback.status.outcomes(for: action) == nil {
            throw LayeredError(
                .invalidValue, parameter: "status",
                message: "status \(callback.status.rawValue) cannot answer cmd \(action.rawValue)")
        }
        let requestedUnit = echoed("unit").flatMap { Int($0) }.flatMap(VitalUnit.init(rawValue:))
        guard let result = callback.result else {
            readings = []
            return
        }
        guard let model else {
            throw LayeredError(
                .missingParameter, parameter: "devicemodel", message: "a result cannot be read without the devicemodel")
        }
        let category = model.category
        let unit = requestedUnit.flatMap { $0.category == category ? $0 : nil } ?? category.defaultUnit
        let decoder = ReadingDecoder(category: category, unit: unit)
        var readings: [ReceivedReading] = []
        switch result {
        case .list(let objects):
            // a measurement's callback carries the live reading first, then any the hub still held for the caller
            let measuredFirst = action.map { $0.includes(.measure) } ?? false
            for (index, object) in objects.enumerated() {
                readings.append(try decoder.reading(object, index, index == 0 && measuredFirst ? .measured : .stored))
            }
        case .combined(let measured, let synced):
            for (index, object) in measured.enumerated() {
                readings.append(try decoder.reading(object, index, .measured))
            }
            for (index, object) in synced.enumerated() {
                readings.append(try decoder.reading(object, measured.count + index, .stored))
            }
        }
        self.readings = readings
    }

    public static func == (left: LayeredResponse, right: LayeredResponse) -> Bool {
        left.callback == right.callback
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(callback) }
}

/// Reads result objects of one category back into typed readings.
struct ReadingDecoder {
    let category: VitalCategory
    let unit: VitalUnit?

    func reading(_ object: ResultObject, _ index: Int, _ origin: ReceivedReading.Origin) throws(LayeredError)
        -> ReceivedReading
    {
        func fail(_ what: String) -> LayeredError {
            LayeredError(.invalidValue, parameter: "result", message: "result object \(index + 1) \(what)")
        }
        var unavailable: [ResultKey: SpecialValue] = [:]
        if let said = object[.unavailable] {
            guard case .object(let members) = said else { throw fail("has an unavailable that is not an object") }
            for member in members.fields {
                guard case .string(let name) = member.value else {
                    throw fail("has unavailable \(member.key) that is not a special value's name")
                }
                if object[member.key] != nil { throw fail("has \(member.key) both measured and unavailable") }
                if let special = SpecialValue(name: name) { unavailable[member.key] = special }
            }
        }
        var flags: [String] = []
        if let said = object[.flags] {
            switch said {
            case .strings(let names): flags = names
            case .list(let objects) where objects.isEmpty: flags = []
            default: throw fail("has flags that are not a list of names")
            }
        }
        let status = flags.reduce(into: ReadingStatus()) { status, name in
            if let known = ReadingStatus(name: name) { status.insert(known) }
        }
        /// The number at `key`; `nil` when `unavailable` names it, an error when it is missing otherwise.
        func number(_ key: ResultKey) throws(LayeredError) -> FixedDecimal? {
            if let value = object.number(key) { return value }
            if object[key] == nil, unavailable[key] != nil { return nil }
            throw fail("has no number \(key)")
        }
        func integer(_ value: FixedDecimal?, _ key: ResultKey) throws(LayeredError) -> Int? {
            guard let value else { return nil }
            guard value.scale == 0, let integer = Int(exactly: value.significand) else {
                throw fail("has \(key) \(value), not a whole number")
            }
            return integer
        }
        func quantity(_ key: ResultKey) throws(LayeredError) -> Quantity? {
            guard let unit else { throw fail("has a \(key) without a unit") }
            return try number(key).map { Quantity($0, unit) }
        }
        func optionalQuantity(_ key: ResultKey) -> Quantity? {
            guard let unit, let value = object.number(key) else { return nil }
            return Quantity(value, unit)
        }
        var measuredAt: Timestamp?
        if category != .activity {
            guard let time = object.measuredAt else { throw fail("has no measured_at") }
            measuredAt = time
        }
        let value: ReceivedReading.Value
        switch category {
        case .bloodPressure:
            let arrhythmia = try integer(object.number(.arrhythmia), .arrhythmia)
            value = .bloodPressure(
                systolic: try quantity(.systolic), diastolic: try quantity(.diastolic),
                heartRate: try integer(object.number(.heartRate), .heartRate), arrhythmia: arrhythmia.map { $0 != 0 })
        case .bloodGlucose:
            value = .glucose(try quantity(.bloodGlucose))
        case .weight:
            let keys: [ResultKey] = [
                .bodyFat, .musclePercentage, .muscleMass, .fatFreeMass, .softLeanMass, .bodyWaterMass,
                .basalMetabolism, .impedance,
            ]
            var composition: ReceivedComposition?
            if keys.contains(where: { object[$0] != nil }) {
                composition = ReceivedComposition(
                    bodyFat: object.number(.bodyFat), musclePercentage: object.number(.musclePercentage),
                    muscleMass: optionalQuantity(.muscleMass), fatFreeMass: optionalQuantity(.fatFreeMass),
                    softLeanMass: optionalQuantity(.softLeanMass), bodyWaterMass: optionalQuantity(.bodyWaterMass),
                    basalMetabolism: try integer(object.number(.basalMetabolism), .basalMetabolism),
                    impedance: object.number(.impedance))
            }
            value = .weight(try quantity(.weight), composition: composition)
        case .oximeter:
            value = .oximetry(
                oxygenSaturation: try integer(try number(.oxygenSaturation), .oxygenSaturation),
                heartRate: try integer(try number(.heartRate), .heartRate),
                perfusionIndex: object.number(.perfusionIndex))
        case .thermometer:
            value = .temperature(try quantity(.temperature))
        case .heartRate:
            value = .heartRate(try integer(try number(.heartRate), .heartRate))
        case .activity:
            guard let day = object.string(.time) else { throw fail("has no time") }
            guard let active = object.object(.activeData) else { throw fail("has no activedata") }
            guard let steps = try integer(active.number(.steps), .steps),
                let calories = try integer(active.number(.calories), .calories)
            else { throw fail("has no steps or calories in activedata") }
            let distance = active.number(.distance).map { Quantity($0, unit ?? .kilometre) }
            value = .activity(day: day, steps: steps, calories: calories, distance: distance)
        }
        return ReceivedReading(
            origin: origin, value: value, measuredAt: measuredAt, object: object, status: status, flags: flags,
            unavailable: unavailable, day: category == .activity ? try receivedDay(object, fail) : nil)
    }

    /// The sleep, swimming, heart rate and sports of an activity day's result object.
    ///
    /// - Throws: `fail`'s error for a member that is there but not an object (`sleepdata`, `swimdata`,
    ///   `heartratedata`) or a list of sports (`sportdata`), a number that is not whole, or a sport without its type,
    ///   start or end.
    func receivedDay(_ object: ResultObject, _ fail: (String) -> LayeredError) throws(LayeredError) -> ReceivedDay {
        func part(_ key: ResultKey) throws(LayeredError) -> ResultObject? {
            guard let value = object[key] else { return nil }
            guard case .object(let part) = value else { throw fail("has a \(key) that is not an object") }
            return part
        }
        func whole(_ part: ResultObject, _ key: ResultKey, in name: String) throws(LayeredError) -> Int? {
            guard let value = part[key] else { return nil }
            guard case .number(let number) = value, number.scale == 0, let integer = Int(exactly: number.significand)
            else { throw fail("has \(name).\(key) that is not a whole number") }
            return integer
        }
        func number(_ part: ResultObject, _ key: ResultKey, in name: String) throws(LayeredError) -> FixedDecimal? {
            guard let value = part[key] else { return nil }
            guard case .number(let number) = value else { throw fail("has \(name).\(key) that is not a number") }
            return number
        }
        var day = ReceivedDay(sports: [])
        if let sleep = try part(.sleepData) {
            let name = ResultKey.sleepData.rawValue
            day.sleep = ReceivedDay.Sleep(
                minutes: try whole(sleep, .sleepTime, in: name),
                efficiency: try whole(sleep, .sleepEfficiency, in: name),
                deep: try whole(sleep, .deep, in: name), light: try whole(sleep, .light, in: name),
                awake: try whole(sleep, .awake, in: name))
        }
        if let swim = try part(.swimData) {
            let name = ResultKey.swimData.rawValue
            day.swim = ReceivedDay.Swim(
                minutes: try whole(swim, .swimTime, in: name), calories: try whole(swim, .calories, in: name))
        }
        if let rate = try part(.heartRateData) {
            let name = ResultKey.heartRateData.rawValue
            day.heartRate = ReceivedDay.HeartRate(
                minimum: try whole(rate, .minimum, in: name), average: try whole(rate, .average, in: name),
                maximum: try whole(rate, .maximum, in: name), minutes: try whole(rate, .minutes, in: name))
        }
        switch object[.sportData] {
        case nil:
            break
        case .list(let sports)?:
            for (index, sport) in sports.enumerated() {
                let name = "sportdata[\(index)]"
                guard let type = try whole(sport, .type, in: name), let start = sport.string(.start),
                    let end = sport.string(.end)
                else { throw fail("has a \(name) without its type, start and end") }
                var detail: ReceivedDay.Sport.Detail?
                switch sport[.detail] {
                case nil: break
                case .object(let object)?:
                    detail = ReceivedDay.Sport.Detail(
                        count: try whole(object, .count, in: name + ".detail"),
                        activity: try whole(object, .activity, in: name + ".detail"),
                        distance: try number(object, .distance, in: name + ".detail"))
                default: throw fail("has \(name).detail that is not an object")
                }
                day.sports.append(
                    ReceivedDay.Sport(
                        type: type, start: start, end: end, calories: try whole(sport, .calories, in: name),
                        steps: try whole(sport, .steps, in: name), distance: try number(sport, .distance, in: name),
                        detail: detail))
            }
        default:
            throw fail("has a sportdata that is not a list of sports")
        }
        func list(_ part: ResultObject?, _ key: ResultKey, in name: String) throws(LayeredError) -> [ResultObject] {
            switch part?[key] {
            case nil: return []
            case .list(let objects)?: return objects
            default: throw fail("has a \(name) that is not a list")
            }
        }
        let totals = try list(try part(.activeData), .sports, in: "activedata.sports")
        for (index, total) in totals.enumerated() {
            let name = "activedata.sports[\(index)]"
            guard let type = try whole(total, .type, in: name) else { throw fail("has a \(name) without its type") }
            day.sportTotals.append(
                ReceivedDay.SportTotal(
                    type: type, steps: try whole(total, .steps, in: name),
                    calories: try whole(total, .calories, in: name), distance: try number(total, .distance, in: name),
                    count: try whole(total, .count, in: name)))
        }
        let segments = try list(try part(.sleepData), .segments, in: "sleepdata.segments")
        for (index, segment) in segments.enumerated() {
            let name = "sleepdata.segments[\(index)]"
            guard let type = try whole(segment, .type, in: name), let start = try whole(segment, .start, in: name),
                let end = try whole(segment, .end, in: name)
            else { throw fail("has a \(name) without its type, start and end") }
            day.sleepSegments.append(ReceivedDay.SleepSegment(type: type, start: start, end: end))
        }
        switch object[.leftOut] {
        case nil: break
        case .strings(let paths)?: day.leftOut = paths
        case .list(let objects)? where objects.isEmpty: break
        default: throw fail("has a leftout that is not a list of names")
        }
        return day
    }
}
