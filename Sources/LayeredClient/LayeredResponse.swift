import LayeredProtocol
import VitalCore

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
