/// One change of a hub's readings, as its change feed (`vitalbridge changes`) and its sinks see it.
///
/// Every change a hub makes to what it may export (a new reading, a correction, a deletion, a reading released from
/// quarantine or returned to it) is one change with a ``sequence`` that grows in commit order and is never reused.
/// The feed keeps the latest change of each reading: a consumer that applied every change up to a sequence and
/// then applies those after it, in order, holds exactly the hub's readings.
///
/// ```swift
/// let change = ReadingChange(
///     sequence: 7, operation: .insert, readingID: 3, device: MACAddress("004D3208D2F4")!, reading: reading)
/// change.version   // 7: a later change of reading 3 has a larger one
/// ```
public struct ReadingChange: Hashable, Sendable {
    /// What happened to the reading.
    public enum Operation: String, CaseIterable, Hashable, Sendable {
        /// The reading is new to the feed: stored, or released from quarantine.
        case insert
        /// The reading changed (a device completed or revised it); it carries the whole reading again.
        case update
        /// The reading is no longer exported: deleted by the user, or returned to quarantine.
        case delete
    }

    /// The change's place in the hub's feed: it grows in commit order and is never reused.
    public var sequence: Int64
    public var operation: Operation
    /// The reading's identifier in its hub: stable for its life; with the hub's identity, unique across hubs.
    public var readingID: Int64
    /// The device that took the reading.
    public var device: MACAddress
    /// The reading as it is after the change; `nil` for a deletion.
    public var reading: Reading?
    /// The person of the home whose reading it is, when its device's user index is assigned to one.
    public var person: String?
    /// Why a deleted reading was deleted: the user's reason, or ``quarantineReason``.
    public var reason: String?

    public init(
        sequence: Int64, operation: Operation, readingID: Int64, device: MACAddress, reading: Reading? = nil,
        person: String? = nil, reason: String? = nil
    ) {
        self.sequence = sequence
        self.operation = operation
        self.readingID = readingID
        self.device = device
        self.reading = reading
        self.person = person
        self.reason = reason
    }

    /// The version of the reading this change leaves: its ``sequence``. A later change of the same reading has a
    /// larger one, so a destination keyed by (hub, reading, version) applies each change once and never lets an
    /// older one replace a newer.
    public var version: Int64 { sequence }

    /// The ``reason`` of a deletion the user did not ask for: the reading's user index was unassigned, so it is in
    /// quarantine again.
    public static let quarantineReason = "returned to quarantine"
}

/// A place in a hub's change feed: the hub's identity and the ``ReadingChange/sequence`` of the last change a
/// consumer has, written `HUB:SEQUENCE` (`2b1f…c0de:1024`). A cursor names its hub so that a consumer never
/// resumes one hub's feed with another's place in it.
public struct FeedCursor: Hashable, Sendable, CustomStringConvertible {
    /// The hub's identity: a lowercase UUID.
    public var hubID: String
    /// The sequence of the last change before the place; 0 before the first.
    public var sequence: Int64

    public init(hubID: String, sequence: Int64) {
        self.hubID = hubID
        self.sequence = sequence
    }

    /// Parses `HUB:SEQUENCE`: a lowercase UUID (`8-4-4-4-12` hex digits), a colon and a whole number of at most 18
    /// digits; `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        guard bytes.count > 37, bytes[36] == UInt8(ascii: ":"), Self.isHubID(bytes[..<36]) else { return nil }
        let digits = bytes[37...]
        guard digits.count <= 18, digits.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        hubID = String(decoding: bytes[..<36], as: UTF8.self)
        sequence = digits.reduce(0) { $0 * 10 + Int64($1 - 0x30) }
    }

    /// `HUB:SEQUENCE`.
    public var description: String { "\(hubID):\(sequence)" }

    /// Whether `bytes` are a lowercase UUID: 8-4-4-4-12 hex digits.
    static func isHubID(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (offset, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(offset) {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte) else { return false }
            }
        }
        return true
    }
}

/// What a sink receives in one transaction: the hub's devices and a run of its feed's changes, oldest first.
///
/// A destination commits the changes and ``through`` together, and answers ``through`` as its position afterwards:
/// a batch sent twice changes nothing the second time.
public struct ChangeBatch: Hashable, Sendable {
    /// A device of the hub, as a destination lists it.
    public struct Device: Hashable, Sendable {
        public var mac: MACAddress
        public var model: DeviceModel
        public var serialNumber: String?
        public var firmwareRevision: String?

        public init(mac: MACAddress, model: DeviceModel, serialNumber: String? = nil, firmwareRevision: String? = nil) {
            self.mac = mac
            self.model = model
            self.serialNumber = serialNumber
            self.firmwareRevision = firmwareRevision
        }
    }

    /// The hub's identity (a lowercase UUID).
    public var hubID: String
    /// The hub's devices: at least every device a change names.
    public var devices: [Device]
    /// The hub's people, by name.
    public var people: [String]
    /// The changes, in sequence order.
    public var changes: [ReadingChange]
    /// The feed's sequence this batch brings the destination to: its last change's, or more when changes between
    /// were superseded.
    public var through: Int64
    /// For a destination that shows each owner's latest value (Home Assistant), the latest reading of each
    /// (owner, kind) the batch's ``LatestScope`` asked for, as the store holds them when the batch is read.
    public var latest: [LatestReading]

    public init(
        hubID: String, devices: [Device], people: [String], changes: [ReadingChange], through: Int64,
        latest: [LatestReading] = []
    ) {
        self.hubID = hubID
        self.devices = devices
        self.people = people
        self.changes = changes
        self.through = through
        self.latest = latest
    }
}

/// Whose readings: a person of the home, by the number the home gave them (never reused, unlike a name), or the
/// home itself, for the readings of devices that do not tell whose a reading is (no user index).
public enum ReadingOwner: Hashable, Comparable, Sendable {
    case home
    case person(Int64)
}

/// Which owners' latest readings a batch of the feed brings (``ChangeBatch/latest``).
public enum LatestScope: Hashable, Sendable {
    /// None: the destination shows no current values.
    case none
    /// The (owner, kind)s the batch's changes may have changed: their readings' owner and kind; for a reading with a
    /// user index, its kind for every person the home has had, since whose it was may have changed since (an index
    /// unassigned, then assigned to someone else, leaves only the last change in the feed).
    case touched
    /// Every (owner, kind) there is or was: what a destination that may have lost what it showed (a new connection
    /// to a broker) publishes again; an owner's kind without readings comes with none.
    case every
}

/// The latest reading of one kind of one owner, by measurement time: what a destination that shows a current value
/// (a Home Assistant sensor) shows.
///
/// Only readings the hub exports count (never one in quarantine or deleted), and "latest" is by the time the reading
/// was measured, not stored: an old record synced later does not replace a newer value.
///
/// ```swift
/// LatestReading(owner: .person(2), person: "Ann", kind: .weight, reading: stored)   // Ann's weight is stored's
/// LatestReading(owner: .person(2), person: "Ann", kind: .weight, reading: nil)      // Ann has no weight any more
/// ```
public struct LatestReading: Hashable, Sendable {
    public var owner: ReadingOwner
    /// The person's name, while the person is in the home; `nil` for the home.
    public var person: String?
    public var kind: ReadingKind
    /// The owner's latest reading of the kind; `nil` when the owner has none (never had, or the last was deleted or
    /// returned to quarantine).
    public var reading: StoredReading?

    public init(owner: ReadingOwner, person: String?, kind: ReadingKind, reading: StoredReading?) {
        self.owner = owner
        self.person = person
        self.kind = kind
        self.reading = reading
    }
}

/// A reading in a hub's store, with its identifier there and its device.
public struct StoredReading: Hashable, Sendable {
    /// The store's identifier, increasing in the order readings were stored.
    public var id: Int64
    public var device: MACAddress
    public var reading: Reading

    public init(id: Int64, device: MACAddress, reading: Reading) {
        self.id = id
        self.device = device
        self.reading = reading
    }
}
