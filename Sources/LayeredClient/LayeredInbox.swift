import LayeredProtocol
import VitalCore

/// A caller's memory of its requests and of the readings it has received: it matches each callback to its request
/// by `requestid`, reports duplicate, late and unasked callbacks, and de-duplicates readings the hub delivers again.
///
/// The hub delivers at least once: a reading whose callback may not have arrived (the hub crashed, the opener
/// failed) is sent again, so a caller can see a reading twice. It may also answer requests out of order (two
/// requests on two devices), answer one twice, or answer a request this caller no longer remembers. None of that
/// loses a reading here: every callback's readings are kept, and a reading already received (same device, time
/// and values) is reported once.
///
/// A caller whose callbacks arrive in separate processes (a desktop URL handler) keeps the inbox between them: it
/// is `Codable` (each request is kept as its URL).
///
/// ```swift
/// var inbox = LayeredInbox()
/// let url = try inbox.send(LayeredIntent(.sync, .bp5, mac: mac), with: client)   // open url
/// // … later, in the handler of the caller's scheme:
/// let delivery = try inbox.receive(callbackURL)
/// store(delivery.newReadings)
/// if delivery.response.remaining > 0 { /* sync again to get the rest */ }
/// ```
public struct LayeredInbox: Hashable, Sendable, Codable {
    /// How a callback relates to the requests sent.
    public enum Match: Hashable, Sendable {
        /// The first answer to an outstanding request, in the order the requests were sent.
        case answer
        /// The first answer to a request sent before one that was already answered.
        case outOfOrder
        /// A request that was answered before.
        case duplicate
        /// No request of this inbox: no `requestid`, or one it never sent. Its readings are kept all the same
        /// (another request may have been answered late, or by a hub restarted since).
        case unasked
    }

    /// One received callback.
    public struct Delivery: Hashable, Sendable {
        public var response: LayeredResponse
        public var match: Match
        /// The request this answers, when it is one of this inbox's.
        public var intent: LayeredIntent?
        /// The callback's readings not received before, in the callback's order.
        public var newReadings: [ReceivedReading]
        /// How many of the callback's readings had been received before.
        public var repeatedReadings: Int
    }

    /// A request sent: its URL, what it asked and its place in the order of sending.
    struct Sent: Hashable, Sendable {
        var url: String
        var intent: LayeredIntent
        var sequence: Int
        var platform: Platform
    }

    /// The requests sent, by correlation id.
    var sent: [String: Sent] = [:]
    /// The ids of requests answered.
    var answered: Set<String> = []
    /// The highest sequence number answered so far.
    var lastAnswered = 0
    /// How many requests were sent.
    var sequence = 0
    /// The readings received: device, kind, time and values.
    var seen: Set<String> = []

    public init() {}

    /// The ids of the requests sent and not answered yet, oldest first.
    public var outstanding: [String] {
        sent.filter { !answered.contains($0.key) }.sorted { $0.value.sequence < $1.value.sequence }.map(\.key)
    }

    /// Builds `intent`'s request URL with `client` and a new correlation id, and remembers it.
    ///
    /// - Throws: the `LayeredError` the hub would answer, as ``LayeredClient/url(for:requestID:)`` does.
    public mutating func send(_ intent: LayeredIntent, with client: LayeredClient) throws(LayeredError) -> String {
        var id = LayeredClient.newRequestID()
        while sent[id] != nil { id = LayeredClient.newRequestID() }
        let request = try client.request(for: intent, requestID: id)
        remember(request, id: id)
        return request.query.url
    }

    /// Remembers a request URL built elsewhere, which must carry a `requestid`.
    ///
    /// - Throws: the `LayeredError` of a URL the hub would refuse, or a missing `requestid`.
    public mutating func expect(requestURL url: String, platform: Platform = .ios) throws(LayeredError) {
        let request = try LayeredRequest(parsing: url, platform: platform)
        guard let id = Self.requestID(of: request), LayeredClient.isValidRequestID(id) else {
            throw LayeredError(.missingParameter, parameter: "requestid", message: "the request has no valid requestid")
        }
        remember(request, id: id)
    }

    mutating func remember(_ request: LayeredRequest, id: String) {
        sequence += 1
        sent[id] = Sent(
            url: request.query.url, intent: LayeredIntent(request), sequence: sequence, platform: request.platform)
    }

    static func requestID(of request: LayeredRequest) -> String? {
        request.query.parameters.first { $0.key == "requestid" }?.decodedValue
    }

    /// Reads the callback `url` and files it.
    ///
    /// - Throws: a `LayeredError` when `url` is not a valid callback (``LayeredResponse/init(parsing:)``); the
    ///   inbox is unchanged then.
    public mutating func receive(_ url: String) throws(LayeredError) -> Delivery {
        receive(try LayeredResponse(parsing: url))
    }

    /// Files a parsed callback.
    public mutating func receive(_ response: LayeredResponse) -> Delivery {
        var match = Match.unasked
        var intent: LayeredIntent?
        if let id = response.requestID, let request = sent[id] {
            intent = request.intent
            if answered.contains(id) {
                match = .duplicate
            } else {
                match = request.sequence < lastAnswered ? .outOfOrder : .answer
                answered.insert(id)
                lastAnswered = max(lastAnswered, request.sequence)
            }
        }
        var fresh: [ReceivedReading] = []
        for reading in response.readings {
            if seen.insert(Self.key(reading, device: response.mac)).inserted { fresh.append(reading) }
        }
        return Delivery(
            response: response, match: match, intent: intent, newReadings: fresh,
            repeatedReadings: response.readings.count - fresh.count)
    }

    /// What makes a reading the same one: its device, and the result object as sent (its kind's keys, its time
    /// and its values in the requested unit).
    static func key(_ reading: ReceivedReading, device: MACAddress?) -> String {
        "\(device?.description ?? "-") \(reading.object.json)"
    }

    enum CodingKeys: String, CodingKey {
        case requests, lastAnswered, seen
    }

    /// A request as it is kept: its id, URL, place and whether it was answered.
    struct Kept: Codable {
        var id: String
        var url: String
        var sequence: Int
        var answered: Bool
        var platform: String
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        let kept = sent.sorted { $0.value.sequence < $1.value.sequence }.map { id, request in
            Kept(
                id: id, url: request.url, sequence: request.sequence, answered: answered.contains(id),
                platform: request.platform.rawValue)
        }
        try container.encode(kept, forKey: .requests)
        try container.encode(lastAnswered, forKey: .lastAnswered)
        try container.encode(seen.sorted(), forKey: .seen)
    }

    /// Reads back what ``encode(to:)`` wrote; a request URL the protocol no longer accepts is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        for request in try container.decode([Kept].self, forKey: .requests) {
            guard let platform = Platform(rawValue: request.platform) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .requests, in: container, debugDescription: "unknown platform \(request.platform)")
            }
            let parsed: LayeredRequest
            do {
                parsed = try LayeredRequest(parsing: request.url, platform: platform)
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .requests, in: container, debugDescription: "request \(request.id): \(error)")
            }
            sent[request.id] = Sent(
                url: request.url, intent: LayeredIntent(parsed), sequence: request.sequence, platform: platform)
            if request.answered { answered.insert(request.id) }
            sequence = max(sequence, request.sequence)
        }
        lastAnswered = try container.decode(Int.self, forKey: .lastAnswered)
        seen = Set(try container.decode([String].self, forKey: .seen))
    }
}

extension LayeredIntent {
    /// What `request` asks.
    public init(_ request: LayeredRequest) {
        self.init(
            request.action, request.deviceModel, mac: request.mac, addType: request.addType, popFlag: request.popFlag,
            unit: request.requestedUnit, profile: request.profile, stripCode: request.stripCode, since: request.since)
    }
}
