import VitalCore

/// The URL the layered app opens to answer a caller.
///
/// Its query is the request's echo (every request parameter but `mac`, values untouched), then the answer:
/// `status`, `mac`, `result`, `reason` and `remaining`, in that order, each only when it has a value:
///
/// ```text
/// myapp://?cmd=0&devicemodel=100&unit=2&ver=100&scheme=myapp&status=0&mac=004D3208D2F4&result=%5B%7B…%7D%5D
/// ```
///
/// `remaining` is VitalBridge's addition: the number of readings that did not fit the URL budget and stay pending
/// for the next sync; it is absent when nothing remains.
public struct LayeredCallback: Hashable, Sendable {
    /// The part before the query: `myapp://` for a caller with scheme `myapp`, or a dynamic `callerurl`.
    public let destination: String
    /// The repeated request parameters, in order.
    public let echo: [QueryParameter]
    /// `status`.
    public var status: ActionStatus
    /// `mac`: the device's address, upper case.
    public var mac: MACAddress?
    /// `result`, on success.
    public var result: LayeredResult?
    /// `reason`, on fail and cancel.
    public var reason: LayeredReason?
    /// `remaining`: readings left pending because they did not fit; `nil` or positive.
    public var remaining: Int?

    /// A callback to `destination` repeating `echo`.
    ///
    /// - Throws: ``LayeredError/Code/invalidValue`` naming `destination` if it is not a scheme followed by
    ///   printable ASCII without `?` and `#`; ``LayeredError/Code/reservedParameter`` or
    ///   ``LayeredError/Code/repeatedParameter`` if `echo` has a parameter the answer writes (`status`, `mac`,
    ///   `result`, `reason`, `remaining`) or a name twice; ``LayeredError/Code/malformedURL`` if an echoed name or
    ///   value is not printable ASCII without `&` and `#` (`=` also in names).
    public init(
        destination: String, echo: [QueryParameter], status: ActionStatus, mac: MACAddress? = nil,
        result: LayeredResult? = nil, reason: LayeredReason? = nil, remaining: Int? = nil
    ) throws(LayeredError) {
        guard Self.isValidDestination(destination) else {
            throw LayeredError(
                .invalidValue, parameter: "destination",
                message: "the destination must be a scheme and printable ASCII without '?' or '#'")
        }
        var seen: Set<String> = []
        for parameter in echo {
            guard isWritable(parameter.name, allowEquals: false), parameter.value.map({ isWritable($0) }) ?? true,
                let key = parameter.key.map(canonicalKey)
            else {
                throw LayeredError(.malformedURL, message: "an echoed parameter is not written as a query allows")
            }
            guard key != "mac", !isReservedCallbackKey(key) else {
                throw LayeredError(.reservedParameter, parameter: key, message: "the echo cannot carry \(key)")
            }
            guard seen.insert(key).inserted else {
                throw LayeredError(.repeatedParameter, parameter: key, message: "the echo has \(key) twice")
            }
        }
        self.destination = destination
        self.echo = echo
        self.status = status
        self.mac = mac
        self.result = result
        self.reason = reason
        self.remaining = remaining
    }

    /// The callback written as a URL.
    public var url: String {
        var bytes: [UInt8] = []
        var encodedResult: [UInt8]?
        if let result {
            var encoded: [UInt8] = []
            PercentEncoding.append(JSONWriter.bytes(result), to: &encoded)
            encodedResult = encoded
        }
        write(to: &bytes, encodedResult: encodedResult)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the URL with `encodedResult` (percent-encoded compact JSON) as the result.
    func write(to bytes: inout [UInt8], encodedResult: [UInt8]?) {
        bytes.append(contentsOf: destination.utf8)
        bytes.append(UInt8(ascii: "?"))
        for parameter in echo {
            parameter.append(to: &bytes)
            bytes.append(UInt8(ascii: "&"))
        }
        bytes.append(contentsOf: "status=".utf8)
        bytes.append(contentsOf: String(status.rawValue).utf8)
        if let mac {
            bytes.append(contentsOf: "&mac=".utf8)
            bytes.append(contentsOf: mac.description.utf8)
        }
        if let encodedResult {
            bytes.append(contentsOf: "&result=".utf8)
            bytes.append(contentsOf: encodedResult)
        }
        if let reason {
            bytes.append(contentsOf: "&reason=".utf8)
            PercentEncoding.append(reason.rawValue, to: &bytes)
        }
        if let remaining {
            bytes.append(contentsOf: "&remaining=".utf8)
            bytes.append(contentsOf: String(remaining).utf8)
        }
    }

    /// Parses a callback URL, as the caller app receives it.
    ///
    /// Every parameter other than `status`, `mac`, `result`, `reason` and `remaining` is echo; for any callback
    /// `c`, `LayeredCallback(parsing: c.url) == c`.
    ///
    /// - Throws: a ``LayeredError`` naming the parameter at fault: `status` absent or not an integer, `mac` not 12
    ///   hex digits, `result` not result JSON, `remaining` not a positive integer, a parameter twice, or a URL that
    ///   ``LayeredQuery`` rejects.
    public init(parsing url: String, maximumLength: Int = Platform.android.defaultCallbackBudget)
        throws(LayeredError)
    {
        let query = try LayeredQuery(parsing: url, maximumLength: maximumLength)
        var echo: [QueryParameter] = []
        var answer: [String: String] = [:]
        for parameter in query.parameters {
            let key = canonicalKey(parameter.key!)
            if key == "mac" || isReservedCallbackKey(key) {
                guard let raw = parameter.value, let value = PercentEncoding.decode(raw) else {
                    throw LayeredError(.invalidValue, parameter: key, message: "\(key) has no value or a bad escape")
                }
                guard answer.updateValue(value, forKey: key) == nil else {
                    throw LayeredError(.repeatedParameter, parameter: key, message: "\(key) occurs more than once")
                }
            } else {
                echo.append(parameter)
            }
        }
        guard let statusText = answer["status"] else {
            throw LayeredError(.missingParameter, parameter: "status", message: "a callback has a status")
        }
        let negative = statusText.hasPrefix("-")
        guard let magnitude = parseDecimal(negative ? statusText.dropFirst() : statusText[...]) else {
            throw LayeredError(.invalidValue, parameter: "status", message: "status is not an integer")
        }
        var mac: MACAddress?
        if let text = answer["mac"] {
            guard let address = MACAddress(text) else {
                throw LayeredError(.invalidValue, parameter: "mac", message: "mac is not 12 hexadecimal digits")
            }
            mac = address
        }
        var remaining: Int?
        if let text = answer["remaining"] {
            guard let count = parseDecimal(text), count > 0 else {
                throw LayeredError(
                    .invalidValue, parameter: "remaining", message: "remaining is not a positive integer")
            }
            remaining = count
        }
        try self.init(
            destination: query.base, echo: echo, status: ActionStatus(rawValue: negative ? -magnitude : magnitude),
            mac: mac, result: answer["result"].map { json throws(LayeredError) in try LayeredResult(json: json) },
            reason: answer["reason"].map(LayeredReason.init(rawValue:)), remaining: remaining)
    }
}

/// Whether `text` can stand in a query as it is: printable ASCII without `&` and `#` (nor `=` in a name).
private func isWritable(_ text: String, allowEquals: Bool = true) -> Bool {
    text.utf8.allSatisfy {
        $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "&") && $0 != UInt8(ascii: "#")
            && (allowEquals || $0 != UInt8(ascii: "="))
    }
}

extension JSONWriter {
    static func bytes(_ result: LayeredResult) -> [UInt8] {
        var bytes: [UInt8] = []
        append(result, to: &bytes)
        return bytes
    }
}

// MARK: - Answering a request

extension LayeredCallback {
    /// The callback answering `request` at `destination`, echoing the request.
    public init(
        answering request: LayeredRequest, destination: String, status: ActionStatus, mac: MACAddress? = nil,
        result: LayeredResult? = nil, reason: LayeredReason? = nil
    ) throws(LayeredError) {
        try self.init(
            destination: destination, echo: request.echo, status: status, mac: mac ?? request.mac, result: result,
            reason: reason)
    }

    /// Whether `destination` can start a callback: a scheme, then printable ASCII without `?` or `#`.
    public static func isValidDestination(_ destination: String) -> Bool {
        LayeredProtocol.isValidDestination(destination)
    }

    /// Why a callback may not go to `destination`, or `nil` when it may.
    ///
    /// A callback carries health data, and nothing on a desktop verifies who opened the hub: what keeps readings
    /// safe is that they go only to a **custom app scheme**, one an installed app registers for itself. So a
    /// destination must be a valid RFC 3986 scheme with printable ASCII after it (no `?`, no `#`), and its scheme
    /// is none of the web, network and system schemes (``refusedSchemes``, and any `web+…`) nor one of the hub's
    /// own (``hubSchemes``, and any `svs-…`), which would make the hub answer itself.
    public static func refusal(ofDestination destination: String) -> String? {
        guard isValidDestination(destination), let scheme = uriScheme(of: destination)?.asciiLowercased() else {
            return "a callback URL is a scheme followed by printable ASCII without '?' or '#' (like myapp://)"
        }
        if refusedSchemes.contains(scheme) || scheme.hasPrefix("web+") {
            return
                "\(scheme): is a web, network or system scheme; a callback goes to a custom app scheme (like myapp://)"
        }
        if hubSchemes.contains(scheme) || scheme.hasPrefix("svs-") {
            return "\(scheme): is a scheme of the hub itself; a callback goes to the caller's own app scheme"
        }
        return nil
    }

    /// The web, network and system schemes a callback never goes to (and every `web+…` scheme).
    public static let refusedSchemes: [String] = [
        "http", "https", "ws", "wss", "file", "data", "javascript", "vbscript", "about", "blob", "ftp", "mailto",
        "tel", "sms", "content", "intent",
    ]

    /// The hub's own schemes (and every `svs-…` scheme), which a callback never goes to.
    public static let hubSchemes: [String] = [layeredAppScheme, "vitalbridge"]

    /// The destination for a caller that answers on `scheme`: `scheme://`.
    public static func destination(scheme: String) -> String { scheme + "://" }
}

/// A callback that carries as many readings as its URL budget allows.
public struct PackedCallback: Hashable, Sendable {
    /// The callback, with ``LayeredCallback/remaining`` set when readings were left out.
    public var callback: LayeredCallback
    /// The URL, at most the budget long.
    public var url: String
    /// Indices into the readings given, of those in the callback, oldest first.
    public var included: [Int]
    /// Indices into the readings given, of those left out, oldest first: the caller keeps them pending.
    public var leftOut: [Int]
}

extension LayeredCallback {
    /// Builds a success callback whose result carries `readings`, oldest first, as many whole readings as fit in
    /// `maximumLength` characters, and reports which were left out.
    ///
    /// Readings are ordered by `Reading.measuredAt` (ties keep their order) and taken from the oldest
    /// until the next one does not fit; a reading is never cut, with one exception: a band day that does not fit
    /// even as the first reading goes without its sleep segments, then without its sport totals too, and says so
    /// in its `leftout` (`Reading.smallerResultObjects(unit:)`), rather than stay pending forever. When some are left out the callback's `remaining`
    /// says how many, and its length counts too. For an action with a combined result, `measured` are the live
    /// readings (`measureresult`, always included) and `readings` the stored ones (`syncresult`). For a plain
    /// list, `leading` readings (the live one of a measurement) come first and are always included.
    ///
    /// - Parameters:
    ///   - callback: the callback without result and remaining (status, mac and echo set).
    ///   - readings: the stored readings to deliver, in any order.
    ///   - measured: the live readings of an action that syncs and measures; `nil` for a plain list.
    ///   - leading: for a plain list, readings that open it, always included (the live one of a measurement).
    ///   - unit: the unit results are written in (``LayeredRequest/unit``).
    ///   - maximumLength: the longest URL allowed, in characters (``Platform/defaultCallbackBudget``).
    /// - Throws: ``LayeredError/Code/urlBudget`` if not even the result without any stored reading fits.
    public static func packing(
        _ callback: LayeredCallback, readings: [Reading], measured: [Reading]? = nil,
        leading: [Reading] = [], unit: VitalUnit?, maximumLength: Int
    ) throws(LayeredError) -> PackedCallback {
        let order = readings.indices.sorted {
            (readings[$0].measuredAt, $0) < (readings[$1].measuredAt, $1)
        }
        var next = order.makeIterator()
        let packed: PackedPrefix
        do {
            packed = try packingOldestFirst(
                callback, count: order.count, next: { next.next().map { readings[$0] } }, measured: measured,
                leading: leading, unit: unit, maximumLength: maximumLength)
        } catch let error as LayeredError {
            throw error
        } catch {
            preconditionFailure("reading from an array cannot fail: \(error)")
        }
        return PackedCallback(
            callback: packed.callback, url: packed.url, included: Array(order.prefix(packed.includedCount)),
            leftOut: Array(order.dropFirst(packed.includedCount)))
    }

    /// Builds a success callback like ``packing(_:readings:measured:leading:unit:maximumLength:)`` from `count`
    /// stored readings that `next` hands over already oldest first (by `Reading.measuredAt`), taking
    /// them until one does not fit: it asks for at most one reading more than the callback carries, so a store can
    /// deliver from a history of any size without reading all of it.
    ///
    /// - Parameters:
    ///   - callback: the callback without result and remaining (status, mac and echo set).
    ///   - count: how many stored readings `next` would hand over in all (for `remaining`).
    ///   - next: the next stored reading, oldest first; `nil` after the last. An error it throws is rethrown.
    ///   - measured: the live readings of an action that syncs and measures; `nil` for a plain list.
    ///   - leading: for a plain list, readings that open it, always included (the live one of a measurement).
    ///   - unit: the unit results are written in (``LayeredRequest/unit``).
    ///   - maximumLength: the longest URL allowed, in characters (``Platform/defaultCallbackBudget``).
    /// - Returns: the callback, its URL and how many of the first stored readings it carries.
    /// - Throws: ``LayeredError/Code/urlBudget`` if not even the result without any stored reading fits.
    public static func packingOldestFirst(
        _ callback: LayeredCallback, count: Int, next: () throws -> Reading?, measured: [Reading]? = nil,
        leading: [Reading] = [], unit: VitalUnit?, maximumLength: Int
    ) throws -> PackedPrefix {
        var bare = callback
        bare.result = nil
        bare.remaining = nil
        var prefix: [UInt8] = []
        bare.write(to: &prefix, encodedResult: nil)

        // The result without stored readings, split where they go: before `]` or, when combined, before `]}`.
        let measuredObjects = measured.map { $0.map { $0.resultObject(unit: unit) } }
        let leadingObjects = measured == nil ? leading.map { $0.resultObject(unit: unit) } : []
        let empty: LayeredResult =
            if let measuredObjects { .combined(measure: measuredObjects, sync: []) } else { .list(leadingObjects) }
        let emptyJSON = JSONWriter.bytes(empty)
        let insertion = emptyJSON.count - (measuredObjects == nil ? 1 : 2)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(min(maximumLength, 1 << 20))
        PercentEncoding.append(emptyJSON[..<insertion], to: &encoded)
        var length =
            prefix.count + "&result=".utf8.count + encoded.count
            + PercentEncoding.encodedLength(of: emptyJSON[insertion...])

        var objects: [ResultObject] = []
        var json: [UInt8] = []
        while objects.count < count, let reading = try next() {
            let needsComma = !objects.isEmpty || !leadingObjects.isEmpty
            let suffix = remainingSuffixLength(count - objects.count - 1)
            var object = reading.resultObject(unit: unit)
            func encode(_ object: ResultObject) -> Int {
                json.removeAll(keepingCapacity: true)
                JSONWriter.append(object, to: &json)
                return PercentEncoding.encodedLength(of: json) + (needsComma ? 1 : 0)
            }
            var added = encode(object)
            if objects.isEmpty, length + added + suffix > maximumLength {
                // a day too large for a callback on its own would stay pending forever, and every later reading
                // behind it: it goes without its longest lists, named in `leftout` (they stay in the store)
                for smaller in reading.smallerResultObjects(unit: unit) {
                    added = encode(smaller)
                    object = smaller
                    if length + added + suffix <= maximumLength { break }
                }
            }
            guard length + added + suffix <= maximumLength else { break }
            if needsComma { encoded.append(UInt8(ascii: ",")) }
            PercentEncoding.append(json, to: &encoded)
            length += added
            objects.append(object)
        }
        let leftCount = count - objects.count
        if objects.isEmpty, length + remainingSuffixLength(leftCount) > maximumLength {
            throw LayeredError(
                .urlBudget, parameter: "result",
                message: "not even an empty result fits the \(maximumLength)-character URL budget")
        }
        PercentEncoding.append(emptyJSON[insertion...], to: &encoded)

        var packed = bare
        packed.result =
            if let measuredObjects {
                .combined(measure: measuredObjects, sync: objects)
            } else {
                .list(leadingObjects + objects)
            }
        packed.remaining = leftCount > 0 ? leftCount : nil
        var url: [UInt8] = []
        url.reserveCapacity(length + remainingSuffixLength(leftCount))
        packed.write(to: &url, encodedResult: encoded)
        assert(url.count <= maximumLength)
        return PackedPrefix(callback: packed, url: String(decoding: url, as: UTF8.self), includedCount: objects.count)
    }
}

/// A callback carrying the first stored readings of a list given oldest first
/// (``LayeredCallback/packingOldestFirst(_:count:next:measured:leading:unit:maximumLength:)``).
public struct PackedPrefix: Hashable, Sendable {
    /// The callback, with ``LayeredCallback/remaining`` set when readings were left out.
    public var callback: LayeredCallback
    /// The URL, at most the budget long.
    public var url: String
    /// How many of the first stored readings the callback carries; the rest stay pending.
    public var includedCount: Int
}

/// The length of `&remaining=N`, or 0 when nothing remains.
private func remainingSuffixLength(_ remaining: Int) -> Int {
    guard remaining > 0 else { return 0 }
    var length = "&remaining=".utf8.count + 1
    var rest = remaining
    while rest >= 10 {
        rest /= 10
        length += 1
    }
    return length
}
