import VitalCore

/// What the world remembers between hub processes: each device's memory, sequence numbers, battery, generator
/// position and the one-shot failures already spent — as a real device keeps its memory across app launches.
public struct WorldState: Hashable, Sendable {
    public var devices: [String: DeviceState]

    public init(devices: [String: DeviceState] = [:]) { self.devices = devices }
}

/// One device's remembered state.
public struct DeviceState: Hashable, Sendable {
    /// The records in the device's memory, oldest first.
    public var records: DeviceMemory
    /// The sequence number the next stored record gets.
    public var nextSequenceNumber: UInt16
    public var battery: Int
    public var generator: SeededGenerator
    /// How many live measurements the device has taken (the index into the fleet's `nextMeasurements`).
    public var measurementsTaken: Int
    /// The injected failures that already happened: `atConnect`, `duringMeasurement`, `duringSync`,
    /// `disconnectAfter`.
    public var spentFailures: Set<String>
    /// The user the activity monitor is bound to.
    public var boundUserID: Int32?
    /// Whether the activity monitor records swimming.
    public var swim: Bool
    /// The users the device keeps in its User Data Service, by index; `nil` for a device without one, and in a
    /// state saved before devices kept users (the world then takes the fleet's).
    public var users: [SimulatedUser]?
    /// What a smartband holds (its items) and how it is set; `nil` for other devices.
    public var band: BandState?
    /// When the hub last set the device's clock (writing its Current Time, or by the vendor set-time command), and
    /// how far ahead of the true time the clock has run since (negative: behind); `nil` while the clock is as the
    /// fleet set it.
    public var clockSet: (at: Timestamp, offset: Int64)? {
        get { clockSetAt.map { ($0, clockSetOffset) } }
        set {
            clockSetAt = newValue?.at
            clockSetOffset = newValue?.offset ?? 0
        }
    }
    var clockSetAt: Timestamp?
    var clockSetOffset: Int64 = 0

    public init(
        records: DeviceMemory, nextSequenceNumber: UInt16, battery: Int, generator: SeededGenerator,
        measurementsTaken: Int, spentFailures: Set<String>, boundUserID: Int32?, swim: Bool,
        users: [SimulatedUser]? = nil, band: BandState? = nil
    ) {
        self.records = records
        self.nextSequenceNumber = nextSequenceNumber
        self.battery = battery
        self.generator = generator
        self.measurementsTaken = measurementsTaken
        self.spentFailures = spentFailures
        self.boundUserID = boundUserID
        self.swim = swim
        self.users = users
        self.band = band
    }
}

/// A record in a simulated device's memory.
public struct StoredRecord: Hashable, Sendable {
    public var sequenceNumber: UInt16
    /// The reading, as the device can send it (validated against its family when the world takes it).
    public var reading: Reading

    public init(sequenceNumber: UInt16, reading: Reading) {
        self.sequenceNumber = sequenceNumber
        self.reading = reading
    }
}

/// A device's memory, oldest record first: an array that forgets its oldest records in constant time, as push
/// devices do one confirmed indication at a time (65,000 of them in a full BP5 sync).
public struct DeviceMemory: RandomAccessCollection, ExpressibleByArrayLiteral, Hashable, Sendable {
    private var storage: [StoredRecord]
    /// How many records at the front of `storage` are forgotten.
    private var start = 0

    public init(_ records: some Sequence<StoredRecord>) { storage = Array(records) }
    public init(arrayLiteral records: StoredRecord...) { storage = records }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count - start }
    public subscript(position: Int) -> StoredRecord { storage[start + position] }

    public mutating func append(_ record: StoredRecord) { storage.append(record) }

    /// Makes room for `count` records in all, so a device of 65,000 generated records is made in one allocation
    /// rather than grown by doubling (its peak then holds one array of the final size, not an old and a new one).
    public mutating func reserveCapacity(_ count: Int) { storage.reserveCapacity(start + count) }

    /// Forgets the `count` oldest records.
    public mutating func removeFirst(_ count: Int = 1) {
        precondition(count >= 0 && count <= self.count, "cannot forget more records than the memory holds")
        start += count
        // the forgotten front is dropped once it is half the storage: each record is moved at most once more
        if start >= 64, start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }

    public mutating func removeAll(where shouldRemove: (StoredRecord) -> Bool) {
        storage.removeFirst(start)
        start = 0
        storage.removeAll(where: shouldRemove)
    }

    public mutating func removeAll() {
        storage.removeAll()
        start = 0
    }

    public static func == (left: DeviceMemory, right: DeviceMemory) -> Bool { left.elementsEqual(right) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for record in self { hasher.combine(record) }
    }
}
