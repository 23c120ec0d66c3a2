import VitalCore

/// A value in a result object: a number, a string (`measured_at`, `time`), a nested object (`activedata`), a
/// list of objects (a band day's `sportdata`) or a list of strings (a reading's `flags`).
public enum ResultValue: Hashable, Sendable {
    case number(FixedDecimal)
    case string(String)
    case object(ResultObject)
    case list([ResultObject])
    /// A list of strings: the status names of `flags`. An empty JSON list is read as an empty ``list(_:)``.
    case strings([String])
}

/// One JSON object of a result, its fields in the order they are written.
public struct ResultObject: Hashable, Sendable {
    /// One `"key":value` pair.
    public struct Field: Hashable, Sendable {
        public var key: ResultKey
        public var value: ResultValue
        public init(_ key: ResultKey, _ value: ResultValue) {
            self.key = key
            self.value = value
        }
    }

    /// The fields, in order; keys are unique.
    public var fields: [Field]

    public init(_ fields: [Field]) { self.fields = fields }

    /// The value of `key`, if present.
    public subscript(key: ResultKey) -> ResultValue? { fields.first { $0.key == key }?.value }

    /// The number at `key`, if it is one.
    public func number(_ key: ResultKey) -> FixedDecimal? {
        if case .number(let number) = self[key] { number } else { nil }
    }

    /// The string at `key`, if it is one.
    public func string(_ key: ResultKey) -> String? {
        if case .string(let string) = self[key] { string } else { nil }
    }

    /// The object at `key`, if it is one.
    public func object(_ key: ResultKey) -> ResultObject? {
        if case .object(let object) = self[key] { object } else { nil }
    }

    /// The list of objects at `key`, if it is one.
    public func list(_ key: ResultKey) -> [ResultObject]? {
        if case .list(let objects) = self[key] { objects } else { nil }
    }

    /// The list of strings at `key`, if it is one.
    public func strings(_ key: ResultKey) -> [String]? {
        if case .strings(let strings) = self[key] { strings } else { nil }
    }

    /// `measured_at` parsed, if present and well formed.
    public var measuredAt: Timestamp? { string(.measuredAt).flatMap { Timestamp(parsing: $0) } }

    /// The object as compact JSON: no spaces, no new lines.
    public var json: String {
        var bytes: [UInt8] = []
        JSONWriter.append(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A key of a result object. Open: a caller must skip keys it does not know.
public struct ResultKey: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    /// `systolic`: integer in mmHg, one decimal in kPa.
    public static let systolic: ResultKey = "systolic"
    /// `diastolic`: as ``systolic``.
    public static let diastolic: ResultKey = "diastolic"
    /// `arrhythmia`: `0` or `1`.
    public static let arrhythmia: ResultKey = "arrhythmia"
    /// `measured_at`: string, UTC, `yyyy-MM-dd HH:mm:ss`.
    public static let measuredAt: ResultKey = "measured_at"
    /// `blood_glucose`: integer in mg/dL, one decimal in mmol/L.
    public static let bloodGlucose: ResultKey = "blood_glucose"
    /// `weight`: two decimals in kg and st, one in lb.
    public static let weight: ResultKey = "weight"
    /// `body_fat`: a VitalBridge extension, body fat with a weight from a body composition scale; one decimal, %.
    public static let bodyFat: ResultKey = "body_fat"
    /// `muscle_percentage`: a VitalBridge extension, as ``bodyFat``; one decimal, %.
    public static let musclePercentage: ResultKey = "muscle_percentage"
    /// `muscle_mass`: a VitalBridge extension, as ``bodyFat``; in the unit and with the decimals of ``weight``.
    public static let muscleMass: ResultKey = "muscle_mass"
    /// `fat_free_mass`: a VitalBridge extension, as ``muscleMass``.
    public static let fatFreeMass: ResultKey = "fat_free_mass"
    /// `soft_lean_mass`: a VitalBridge extension, as ``muscleMass``.
    public static let softLeanMass: ResultKey = "soft_lean_mass"
    /// `body_water_mass`: a VitalBridge extension, as ``muscleMass``.
    public static let bodyWaterMass: ResultKey = "body_water_mass"
    /// `basal_metabolism`: a VitalBridge extension, as ``bodyFat``; integer, kJ.
    public static let basalMetabolism: ResultKey = "basal_metabolism"
    /// `impedance`: a VitalBridge extension, as ``bodyFat``; one decimal, Ω.
    public static let impedance: ResultKey = "impedance"
    /// `oxygen_saturation`: integer, %.
    public static let oxygenSaturation: ResultKey = "oxygen_saturation"
    /// `perfusion_index`: one decimal, %.
    public static let perfusionIndex: ResultKey = "perfusion_index"
    /// `heart_rate`: integer, beats per minute.
    public static let heartRate: ResultKey = "heart_rate"
    /// `temperature`: one decimal, °C or °F.
    public static let temperature: ResultKey = "temperature"
    /// `time`: an activity day, `yyyy-MM-dd`.
    public static let time: ResultKey = "time"
    /// `activedata`: `{"steps":…,"calories":…}`.
    public static let activeData: ResultKey = "activedata"
    /// `sleepdata`: `{"sleeptime":…,"sleepefficiency":…}`.
    public static let sleepData: ResultKey = "sleepdata"
    /// `swimdata`: `{"swimtime":…,"calories":…}`.
    public static let swimData: ResultKey = "swimdata"
    /// `steps`: integer.
    public static let steps: ResultKey = "steps"
    /// `calories`: integer, kcal.
    public static let calories: ResultKey = "calories"
    /// `sleeptime`: integer, minutes.
    public static let sleepTime: ResultKey = "sleeptime"
    /// `sleepefficiency`: integer, 0–100.
    public static let sleepEfficiency: ResultKey = "sleepefficiency"
    /// `swimtime`: integer, minutes.
    public static let swimTime: ResultKey = "swimtime"
    /// `distance`: a band day's distance, two decimals, km or miles.
    public static let distance: ResultKey = "distance"
    /// `deep`: a band night's minutes of deep sleep.
    public static let deep: ResultKey = "deep"
    /// `light`: a band night's minutes of light sleep.
    public static let light: ResultKey = "light"
    /// `awake`: a band night's minutes awake.
    public static let awake: ResultKey = "awake"
    /// `heartratedata`: `{"min":…,"avg":…,"max":…,"minutes":…}`, a band day's heart-rate minutes.
    public static let heartRateData: ResultKey = "heartratedata"
    /// `min`: beats per minute.
    public static let minimum: ResultKey = "min"
    /// `avg`: beats per minute.
    public static let average: ResultKey = "avg"
    /// `max`: beats per minute.
    public static let maximum: ResultKey = "max"
    /// `minutes`: how many minutes had a heart rate.
    public static let minutes: ResultKey = "minutes"
    /// `sportdata`: a band day's finished sports, a list of `{"type":…,"start":…,"end":…,"calories":…}`, extended
    /// with `steps`, `distance` and, when the band sent one, `detail`.
    public static let sportData: ResultKey = "sportdata"
    /// `type`: a band's sport code.
    public static let type: ResultKey = "type"
    /// `start`: `HH:mm:ss`.
    public static let start: ResultKey = "start"
    /// `end`: `HH:mm:ss`.
    public static let end: ResultKey = "end"
    /// `detail`: a VitalBridge extension, a band sport's `detail_data`: `count`, `activity` and `distance`, those
    /// the band sent.
    public static let detail: ResultKey = "detail"
    /// `count`: repetitions of a counting sport (sit-ups, push-ups, rope skips, pull-ups).
    public static let count: ResultKey = "count"
    /// `activity`: the band's own measure of a sport, without a unit.
    public static let activity: ResultKey = "activity"
    /// `sports`: a VitalBridge extension inside a band day's `activedata`, the day's totals of each sport, a list of
    /// `{"type":…,"steps":…,"calories":…,"distance":…}` with `count` when the band sent one.
    public static let sports: ResultKey = "sports"
    /// `segments`: a VitalBridge extension inside a band day's `sleepdata`, the night's segments in order, a list of
    /// `{"type":…,"start":…,"end":…}`, types 1 start, 2 end, 3 deep, 4 light, 5 placed, 6 wake-up, times in
    /// minutes of the day.
    public static let segments: ResultKey = "segments"
    /// `leftout`: a VitalBridge extension, the lists of a day too large for the URL budget on its own that its
    /// result leaves out, by path (`["sleepdata.segments"]`); present only when one is left out.
    public static let leftOut: ResultKey = "leftout"
    /// `flags`: a VitalBridge extension, the statuses the device reported with the reading, by name
    /// (`["bodyMovement","irregularPulse"]`); present only when it reported one.
    public static let flags: ResultKey = "flags"
    /// `unavailable`: a VitalBridge extension, the values the device sent an IEEE-11073 special value for instead
    /// of a number, each by its result key with the special value's name (`{"systolic":"NaN"}`); the key itself is
    /// left out of the object. A member of a nested object is named by its path (`swimdata.calories`). Present only
    /// when a value is unavailable.
    public static let unavailable: ResultKey = "unavailable"
    /// `measureresult`: the live readings of a combined result.
    public static let measureResult: ResultKey = "measureresult"
    /// `syncresult`: the stored readings of a combined result.
    public static let syncResult: ResultKey = "syncresult"
}

/// The `result` of a success callback.
public enum LayeredResult: Hashable, Sendable {
    /// `[{…},{…}]`: the readings of a measure or sync, or the daily summaries of an activity monitor.
    case list([ResultObject])
    /// `{"measureresult":[…],"syncresult":[…]}`: the readings of an action that syncs and measures.
    case combined(measure: [ResultObject], sync: [ResultObject])

    /// Every object of the result: a list's, or a combined result's measured ones, then its synced ones.
    public var objects: [ResultObject] {
        switch self {
        case .list(let objects): objects
        case .combined(let measure, let sync): measure + sync
        }
    }

    /// The result as compact JSON.
    public var json: String {
        var bytes: [UInt8] = []
        JSONWriter.append(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses the compact or spaced JSON of a result.
    ///
    /// Accepts exactly the shapes VitalBridge writes: an array of objects, or an object with the two keys
    /// `measureresult` and `syncresult` holding arrays of objects. Values are numbers without exponent (at most 18
    /// digits, 9 after the point), strings, objects, lists of objects nested at most 4 deep, and lists of strings
    /// (`flags`); `true`, `false`, `null` and arrays mixing objects and strings or holding anything else are
    /// rejected, and so are repeated keys.
    public init(json: String) throws(LayeredError) {
        func invalid(_ why: String) -> LayeredError {
            LayeredError(.invalidValue, parameter: "result", message: "result is not valid result JSON: \(why)")
        }
        let document: JSON
        do {
            document = try JSON.parse(Array(json.utf8))
        } catch {
            throw invalid("it \(error.message) (at byte \(error.offset))")
        }
        func objects(_ value: JSON, _ name: String) throws(LayeredError) -> [ResultObject] {
            guard case .array(let elements) = value else { throw invalid("\(name) is \(value.kind), not an array") }
            var objects: [ResultObject] = []
            for element in elements {
                guard let object = ResultObject(json: element, depth: 0) else {
                    throw invalid("an element of \(name) is not an object of numbers, strings and objects")
                }
                objects.append(object)
            }
            return objects
        }
        switch document {
        case .object(let members):
            // the parser has refused repeated keys: two members with these names are the two lists
            guard members.count == 2,
                let measure = members.first(where: { $0.key == ResultKey.measureResult.rawValue }),
                let sync = members.first(where: { $0.key == ResultKey.syncResult.rawValue })
            else { throw invalid("an object result has exactly the members measureresult and syncresult") }
            self = .combined(
                measure: try objects(measure.value, "measureresult"), sync: try objects(sync.value, "syncresult"))
        default:
            self = .list(try objects(document, "the result"))
        }
    }
}

extension ResultObject {
    /// The result object `value`, or `nil` if it holds anything but numbers of `FixedDecimal`, strings, objects
    /// and lists of objects, or nests past 4 levels.
    init?(json value: JSON, depth: Int) {
        guard depth < 4, case .object(let members) = value else { return nil }
        var fields: [Field] = []
        fields.reserveCapacity(members.count)
        for (key, member) in members {
            switch member {
            case .string(let text): fields.append(Field(ResultKey(rawValue: key), .string(text)))
            case .number(let text):
                guard let number = FixedDecimal(json: text) else { return nil }
                fields.append(Field(ResultKey(rawValue: key), .number(number)))
            case .object:
                guard let nested = ResultObject(json: member, depth: depth + 1) else { return nil }
                fields.append(Field(ResultKey(rawValue: key), .object(nested)))
            case .array(let elements):
                if case .string? = elements.first {
                    var strings: [String] = []
                    for element in elements {
                        guard case .string(let text) = element else { return nil }
                        strings.append(text)
                    }
                    fields.append(Field(ResultKey(rawValue: key), .strings(strings)))
                    continue
                }
                var objects: [ResultObject] = []
                for element in elements {
                    guard let object = ResultObject(json: element, depth: depth + 1) else { return nil }
                    objects.append(object)
                }
                fields.append(Field(ResultKey(rawValue: key), .list(objects)))
            case .null, .bool: return nil
            }
        }
        self.init(fields)
    }
}

extension FixedDecimal {
    /// The JSON number `text` (as `JSON` keeps it), if it has no exponent, at most 18 digits and at most 9 after
    /// the point.
    init?(json text: String) {
        let bytes = Array(text.utf8)
        let negative = bytes.first == UInt8(ascii: "-")
        let digits = bytes.dropFirst(negative ? 1 : 0)
        let point = digits.firstIndex(of: UInt8(ascii: "."))
        let scale = point.map { digits.endIndex - $0 - 1 } ?? 0
        guard digits.count - (point == nil ? 0 : 1) <= 18, scale <= 9 else { return nil }
        var significand: Int64 = 0
        for byte in digits where byte != UInt8(ascii: ".") {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }  // an exponent
            significand = significand * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        self.init(significand: negative ? -significand : significand, scale: scale)
    }
}

/// Writes compact JSON.
enum JSONWriter {
    static func append(_ result: LayeredResult, to bytes: inout [UInt8]) {
        switch result {
        case .list(let objects):
            append(objects, to: &bytes)
        case .combined(let measure, let sync):
            bytes.append(contentsOf: #"{"measureresult":"#.utf8)
            append(measure, to: &bytes)
            bytes.append(contentsOf: #","syncresult":"#.utf8)
            append(sync, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    static func append(_ objects: [ResultObject], to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "["))
        for (index, object) in objects.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(object, to: &bytes)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    static func append(_ object: ResultObject, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (index, field) in object.fields.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(field.key.rawValue, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            switch field.value {
            case .number(let number): number.append(to: &bytes)
            case .string(let string): appendString(string, to: &bytes)
            case .object(let nested): append(nested, to: &bytes)
            case .list(let objects): append(objects, to: &bytes)
            case .strings(let strings):
                bytes.append(UInt8(ascii: "["))
                for (index, string) in strings.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    appendString(string, to: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) { JSON.appendString(string, to: &bytes) }
}
