/// A decimal number with a fixed number of fraction digits, as results carry them: `120`, `5.6`, `70.25`.
///
/// Results are rounded once, to the digits their unit allows, and written exactly; parsing the text back gives
/// the same significand and scale, so a callback survives a build and parse unchanged.
public struct FixedDecimal: Hashable, Sendable, CustomStringConvertible {
    /// The number times 10^``scale``.
    public var significand: Int64
    /// The number of fraction digits written, 0–9.
    public var scale: Int

    public init(significand: Int64, scale: Int) {
        precondition((0...9).contains(scale), "a FixedDecimal has 0 to 9 fraction digits")
        self.significand = significand
        self.scale = scale
    }

    /// A whole number.
    public init(_ integer: Int) { self.init(significand: Int64(integer), scale: 0) }

    /// `value` rounded half away from zero to `scale` fraction digits, or `nil` if it is not finite or too large.
    ///
    /// The value is nudged by one part in 10^9 away from zero before rounding, so that a half written inexactly
    /// in binary (`2.25` stored as `2.2499999…`) rounds as the decimal it stands for.
    public init?(rounding value: Double, scale: Int) {
        guard value.isFinite, (0...9).contains(scale) else { return nil }
        var power = 1.0
        for _ in 0..<scale { power *= 10 }
        let scaled = value * power
        let rounded = (scaled + scaled * 1e-9).rounded(.toNearestOrAwayFromZero)
        guard abs(rounded) < 9e15 else { return nil }
        self.init(significand: Int64(rounded), scale: scale)
    }

    /// The number as a `Double` (exact for the magnitudes results have).
    public var doubleValue: Double {
        var power = 1.0
        for _ in 0..<scale { power *= 10 }
        return Double(significand) / power
    }

    public var description: String {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    func append(to bytes: inout [UInt8]) {
        if significand < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = significand.magnitude
        var count = 1
        while count < 19, magnitude >= powersOfTen[count] { count += 1 }
        count = max(count, scale + 1)
        for position in 0..<count {
            if position == count - scale { bytes.append(UInt8(ascii: ".")) }
            let power = count - 1 - position
            let digit = magnitude / powersOfTen[power] % 10
            bytes.append(UInt8(ascii: "0") + UInt8(digit))
        }
    }
}

/// 10^0 … 10^18.
private let powersOfTen: [UInt64] = (0..<19).map { (0..<$0).reduce(1) { value, _ in value * 10 } }

/// A value in a result object: a number, a string (`measured_at`, `time`) or a nested object (`activedata`).
public enum ResultValue: Hashable, Sendable {
    case number(FixedDecimal)
    case string(String)
    case object(ResultObject)
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

    /// `measured_at` parsed, if present and well formed.
    public var measuredAt: LayeredTimestamp? { string(.measuredAt).flatMap { LayeredTimestamp(parsing: $0) } }

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

    /// The result as compact JSON.
    public var json: String {
        var bytes: [UInt8] = []
        JSONWriter.append(self, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses the compact or spaced JSON of a result.
    ///
    /// Accepts exactly the shapes VitalBridge writes: an array of objects, or an object with the two keys
    /// `measureresult` and `syncresult` holding arrays of objects. Values are numbers without exponent, strings
    /// and objects; `true`, `false`, `null` and nested arrays are rejected, and so are repeated keys.
    public init(json: String) throws(LayeredError) {
        var parser = JSONParser(bytes: Array(json.utf8))
        guard let result = parser.parseResult() else {
            throw LayeredError(
                .invalidValue, parameter: "result",
                message: "result is not valid result JSON (at byte \(parser.offset))")
        }
        self = result
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
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    static func appendString(_ string: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0..<0x20:
                bytes.append(contentsOf: "\\u00".utf8)
                bytes.append(upperHexDigits[Int(byte >> 4)])
                bytes.append(upperHexDigits[Int(byte & 0xF)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

/// Parses the JSON subset of ``LayeredResult``; every method returns `nil` at the first error, leaving
/// ``offset`` at it.
struct JSONParser {
    let bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseResult() -> LayeredResult? {
        skipSpace()
        let result: LayeredResult
        if peek() == UInt8(ascii: "[") {
            guard let list = parseArray() else { return nil }
            result = .list(list)
        } else {
            guard consume(UInt8(ascii: "{")) else { return nil }
            var measure: [ResultObject]?
            var sync: [ResultObject]?
            repeat {
                guard let key = parseString() else { return nil }
                guard consume(UInt8(ascii: ":")), let list = parseArray() else { return nil }
                switch key {
                case ResultKey.measureResult.rawValue where measure == nil: measure = list
                case ResultKey.syncResult.rawValue where sync == nil: sync = list
                default: return nil
                }
            } while consume(UInt8(ascii: ","))
            guard consume(UInt8(ascii: "}")), let measure, let sync else { return nil }
            result = .combined(measure: measure, sync: sync)
        }
        skipSpace()
        return offset == bytes.count ? result : nil
    }

    mutating func parseArray() -> [ResultObject]? {
        guard consume(UInt8(ascii: "[")) else { return nil }
        var objects: [ResultObject] = []
        if consume(UInt8(ascii: "]")) { return objects }
        repeat {
            guard let object = parseObject(depth: 0) else { return nil }
            objects.append(object)
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "]")) ? objects : nil
    }

    mutating func parseObject(depth: Int) -> ResultObject? {
        guard depth < 4, consume(UInt8(ascii: "{")) else { return nil }
        var fields: [ResultObject.Field] = []
        if consume(UInt8(ascii: "}")) { return ResultObject(fields) }
        repeat {
            guard let key = parseString(), !fields.contains(where: { $0.key.rawValue == key }),
                consume(UInt8(ascii: ":"))
            else { return nil }
            skipSpace()
            let value: ResultValue
            switch peek() {
            case UInt8(ascii: "\""):
                guard let string = parseString() else { return nil }
                value = .string(string)
            case UInt8(ascii: "{"):
                guard let object = parseObject(depth: depth + 1) else { return nil }
                value = .object(object)
            default:
                guard let number = parseNumber() else { return nil }
                value = .number(number)
            }
            fields.append(ResultObject.Field(ResultKey(rawValue: key), value))
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}")) ? ResultObject(fields) : nil
    }

    mutating func parseNumber() -> FixedDecimal? {
        skipSpace()
        let negative = peek() == UInt8(ascii: "-")
        if negative { offset += 1 }
        var significand: Int64 = 0
        var integerDigits = 0
        var scale = 0
        var seenPoint = false
        while let byte = peek() {
            if byte == UInt8(ascii: "."), !seenPoint, integerDigits > 0 {
                seenPoint = true
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                if seenPoint { scale += 1 } else { integerDigits += 1 }
                guard integerDigits + scale <= 18, scale <= 9 else { return nil }
                if !seenPoint, integerDigits == 2, significand == 0 { return nil }  // a leading zero: "01"
                significand = significand * 10 + Int64(byte - UInt8(ascii: "0"))
            } else {
                break
            }
            offset += 1
        }
        guard integerDigits > 0, !seenPoint || scale > 0 else { return nil }
        return FixedDecimal(significand: negative ? -significand : significand, scale: scale)
    }

    mutating func parseString() -> String? {
        skipSpace()
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        func flush() -> Bool {
            guard !utf8.isEmpty else { return true }
            guard let text = String(validating: utf8, as: UTF8.self) else { return false }
            scalars.append(contentsOf: text.unicodeScalars)
            utf8.removeAll()
            return true
        }
        while let byte = peek() {
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard flush() else { return nil }
                return String(scalars)
            case UInt8(ascii: "\\"):
                guard flush(), let escaped = parseEscape() else { return nil }
                scalars.append(escaped)
            case 0..<0x20:
                return nil
            default:
                utf8.append(byte)
            }
        }
        return nil
    }

    mutating func parseEscape() -> Unicode.Scalar? {
        guard let byte = peek() else { return nil }
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let high = parseHex4() else { return nil }
            if (0xD800..<0xDC00).contains(high) {
                guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = parseHex4(),
                    (0xDC00..<0xE000).contains(low)
                else { return nil }
                return Unicode.Scalar(0x10000 + (high - 0xD800) << 10 + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        default: return nil
        }
    }

    mutating func parseHex4() -> UInt32? {
        guard offset + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[offset..<offset + 4] {
            guard let digit = hexDigitValue(byte) else { return nil }
            value = value << 4 | UInt32(digit)
        }
        offset += 4
        return value
    }

    func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func consume(_ byte: UInt8) -> Bool {
        skipSpace()
        guard peek() == byte else { return false }
        offset += 1
        return true
    }

    mutating func skipSpace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
    }
}
