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
/// devices do one confirmed indication at a time (65,000 of them in a full BP5 sync), and that makes a device's
/// generated history as it is read rather than up front.
///
/// The generated records (at most one run) sit after the records kept before them (a fleet's
/// scripted list) and before those appended after (live measurements). A generated record is made again each time it
/// is read, from the generator's state saved before it (8 bytes a record, where a made record is about 190): a
/// 65,000-record device costs half a megabyte until its records are asked for, and a sync holds one at a time.
public struct DeviceMemory: RandomAccessCollection, ExpressibleByArrayLiteral, Hashable, Sendable {
    private var storage: [StoredRecord]
    /// How many records at the front of `storage` are forgotten.
    private var start = 0
    /// The generated records not yet forgotten, which come after `storage[..<generatedAt]`.
    private var generated: GeneratedRun?
    private var generatedAt = 0

    public init(_ records: some Sequence<StoredRecord>) { storage = Array(records) }
    public init(arrayLiteral records: StoredRecord...) { storage = records }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.count - start + (generated?.count ?? 0) }
    public subscript(position: Int) -> StoredRecord {
        let index = start + position
        guard let generated, index >= generatedAt else { return storage[index] }
        let inRun = index - generatedAt
        return inRun < generated.count ? generated[inRun] : storage[index - generated.count]
    }

    public mutating func append(_ record: StoredRecord) { storage.append(record) }

    /// Appends `run`'s records, made as they are read. A memory holds one run at a time.
    mutating func append(_ run: GeneratedRun) {
        precondition(generated == nil, "a device's memory holds one generated run")
        guard run.count > 0 else { return }
        generated = run
        generatedAt = storage.count
    }

    /// Makes room for `count` records kept as made, so a device's scripted records are made in one allocation.
    public mutating func reserveCapacity(_ count: Int) { storage.reserveCapacity(start + count) }

    /// Forgets the `count` oldest records.
    public mutating func removeFirst(_ count: Int = 1) {
        precondition(count >= 0 && count <= self.count, "cannot forget more records than the memory holds")
        var count = count
        if var run = generated {
            let before = Swift.min(count, generatedAt - start)
            start += before
            count -= before
            let fromRun = Swift.min(count, run.count)
            run.removeFirst(fromRun)
            count -= fromRun
            generated = run.count > 0 ? run : nil
        }
        start += count
        // the forgotten front is dropped once it is half the storage: each record is moved at most once more
        if start >= 64, start * 2 >= storage.count {
            storage.removeFirst(start)
            generatedAt = Swift.max(generatedAt - start, 0)
            start = 0
        }
    }

    /// Forgets the records `shouldRemove` picks. A generated run none of whose records it picks stays a run; one it
    /// reaches into is made, and kept as made from then on (a filtered delete of generated records: rare).
    public mutating func removeAll(where shouldRemove: (StoredRecord) -> Bool) {
        guard let run = generated else {
            storage.removeFirst(start)
            start = 0
            storage.removeAll(where: shouldRemove)
            return
        }
        if (0..<run.count).contains(where: { shouldRemove(run[$0]) }) {
            storage = filter { !shouldRemove($0) }
            generated = nil
            generatedAt = 0
        } else {
            let before = storage[start..<generatedAt].filter { !shouldRemove($0) }
            storage = before + storage[generatedAt...].filter { !shouldRemove($0) }
            generatedAt = before.count
        }
        start = 0
    }

    public mutating func removeAll() {
        storage.removeAll()
        start = 0
        generated = nil
        generatedAt = 0
    }

    public static func == (left: DeviceMemory, right: DeviceMemory) -> Bool { left.elementsEqual(right) }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for record in self { hasher.combine(record) }
    }
}

/// Records a device made from a seed, numbered in order: each made again when it is read, from the generator's
/// state saved before it, so that a record read twice is the same record.
struct GeneratedRun: Sendable {
    /// The generator's state before each record not yet forgotten is made (`states[first...]`).
    private let states: [UInt64]
    private var first = 0
    private let firstSequenceNumber: UInt16
    /// Makes record `index` (from the run's start) with the generator it is given.
    private let make: @Sendable (_ index: Int, _ random: inout SeededGenerator) -> Reading

    /// A run of `count` records made by `make` from a generator seeded with `seed`, numbered from
    /// `firstSequenceNumber` (wrapping as a device's 16-bit numbers do). Each is made once here, to save the
    /// generator's state before it.
    init(
        count: Int, seed: UInt64, firstSequenceNumber: UInt16,
        make: @escaping @Sendable (_ index: Int, _ random: inout SeededGenerator) -> Reading
    ) {
        var random = SeededGenerator(seed: seed)
        var states: [UInt64] = []
        states.reserveCapacity(count)
        for index in 0..<count {
            states.append(random.state)
            _ = make(index, &random)
        }
        self.states = states
        self.firstSequenceNumber = firstSequenceNumber
        self.make = make
    }

    var count: Int { states.count - first }

    subscript(position: Int) -> StoredRecord {
        let index = first + position
        var random = SeededGenerator(seed: states[index])
        return StoredRecord(
            sequenceNumber: firstSequenceNumber &+ UInt16(truncatingIfNeeded: index), reading: make(index, &random))
    }

    mutating func removeFirst(_ count: Int) { first += count }
}
