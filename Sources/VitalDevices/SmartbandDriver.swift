import HealthGATT
import Locking
import VitalCore

extension BandItem {
    /// The day the item belongs to; `nil` for today's totals, which the host dates (``dated(today:)``).
    public var date: CalendarDate? {
        switch self {
        case .todayTotals: nil
        case .dayTotals(let date, _): date
        case .sport(let session): session.date
        case .sleep(let segment): segment.date
        case .heartRate(let hour): hour.date
        }
    }

    /// The item with today's totals dated `today`, the host's day (the SDK document's rule): what is stored.
    public func dated(today: CalendarDate) -> BandItem {
        if case .todayTotals(let totals) = self { return .dayTotals(today, totals) }
        return self
    }

    /// What tells a stored item from the other items of its day and kind, so that an item sent again replaces
    /// the one stored: the sport of totals (newer totals of a day replace older ones), the start minute of a sport
    /// or sleep segment, the hour of heart rate. The marks of a night (start 1, end 2, placed 5) share a minute with
    /// the segment they open or close, so theirs is offset by 1440 times their type: neither replaces the other.
    public var key: Int {
        switch self {
        case .todayTotals(let totals), .dayTotals(_, let totals): Int(totals.sport.rawValue)
        case .sport(let session): session.start.value
        case .sleep(let segment):
            switch segment.type {
            case .startSleep, .endSleep, .placed: 1440 * Int(segment.type.rawValue) + segment.start.value
            case .deepSleep, .lightSleep, .wakeUp: segment.start.value
            }
        case .heartRate(let hour): hour.hour
        }
    }

    /// The item's kind as stored: its type byte, today's totals counting as a day's (type 2), and an item with the
    /// counting sports' additions as the item without them (totals 2, a sport 3), so that either replaces the other.
    public var kind: Int {
        switch type {
        case 0x01, 0x07, 0x08: 0x02
        case 0x06: 0x03
        default: Int(type)
        }
    }

    /// The item's bytes as stored, its band's clock unread: ``storedBytes(dating:)`` with ``BandItemDating/unread``.
    public var storedBytes: [UInt8] { storedBytes(dating: .unread) }

    /// The item's bytes as stored: the notification, its sequence number holding how the hub dated it (date
    /// today's totals first, with ``dated(today:)``: their own date bytes are not kept).
    public func storedBytes(dating: BandItemDating) -> [UInt8] {
        BandMessage.item(sequence: dating.sequenceField, self).encoded()
    }

    /// The item of bytes ``storedBytes(dating:)`` wrote.
    ///
    /// - Throws: `GATTError` if they are not an item.
    public init(storedBytes bytes: [UInt8]) throws(GATTError) {
        self = try Self.stored(bytes).item
    }

    /// The item of bytes ``storedBytes(dating:)`` wrote, and how it was dated.
    ///
    /// - Throws: `GATTError` if they are not an item.
    public static func stored(_ bytes: [UInt8]) throws(GATTError) -> (item: BandItem, dating: BandItemDating) {
        guard case .item(let field, let item) = try BandMessage(bytes: bytes) else {
            throw GATTError(.reservedValue, characteristic: "band data", field: "type", offset: 0)
        }
        return (item, BandItemDating(sequenceField: field))
    }
}

extension DayItemBatch {
    /// A band's items, dated as `dating` says (already moved by the clock's offset), with its rule for a day's
    /// reading: a `BandDay` summed up from all of the day's items, marked `timeUnverified` when one of them came on a
    /// link whose band clock was not read, and `deviceClockNotSet` when one was dated by a clock that had restarted.
    ///
    /// - Throws: ``DeviceError/Code/storeFailed`` for an undated item (today's totals the driver did not date with
    ///   ``BandItem/dated(today:)``): nothing of the batch is stored.
    public init(bandItems: [BandItem], dating: BandItemDating = .unread) throws(DeviceError) {
        try self.init(datedBandItems: bandItems.map { ($0, dating) })
    }

    /// A band's items, each dated as its dating says, as ``init(bandItems:dating:)`` keeps them.
    ///
    /// - Throws: ``DeviceError/Code/storeFailed`` for an undated item: nothing of the batch is stored.
    public init(datedBandItems: [(item: BandItem, dating: BandItemDating)]) throws(DeviceError) {
        let items = try datedBandItems.map { item, dating throws(DeviceError) in
            guard let date = item.date else {
                throw DeviceError(.storeFailed, message: "today's totals must be dated before they are stored")
            }
            return DayItem(date: date, kind: item.kind, key: item.key, bytes: item.storedBytes(dating: dating))
        }
        self.init(items: items) { date, items in
            let stored = try items.map { try BandItem.stored($0.bytes) }
            var day = BandDay(date: date, items: stored.map(\.item))
            if stored.contains(where: { !$0.dating.clockRead }) { day.annotations.status.insert(.timeUnverified) }
            if stored.contains(where: \.dating.clockWasReset) { day.annotations.status.insert(.deviceClockNotSet) }
            return .band(day)
        }
    }
}

extension RecordSink {
    /// Keeps items a band pushed with the summaries of the days they change (``DayItemBatch/init(bandItems:dating:)``);
    /// returns only once they are durable. A band is told it may forget them only after this returns. Today's
    /// totals come dated (the driver dates them with the host's day as they arrive); undated ones are refused.
    public func storeBandItems(_ items: [BandItem], dating: BandItemDating = .unread) async throws {
        try await storeDayItems(try DayItemBatch(bandItems: items, dating: dating))
    }

    /// Keeps items a band pushed, each dated as its dating says (``DayItemBatch/init(datedBandItems:)``).
    public func storeBandItems(dated items: [(item: BandItem, dating: BandItemDating)]) async throws {
        try await storeDayItems(try DayItemBatch(datedBandItems: items))
    }
}

extension BandDay {
    /// The day `date` summed up from its band items (already dated):
    /// - steps, calories and distance: the sum of its totals, one per sport;
    /// - sport totals: those totals themselves, by sport code, each with its `count` when the band sent one;
    /// - sleep: the minutes of its deep (3), light (4) and wake-up (6) segments; start, end and placed segments
    ///   mark the night and count for nothing;
    /// - sleep segments: every segment, marks included, by start minute; at the same minute a mark (no length)
    ///   comes before a segment, so that a night reads start, the segments, end, then placed;
    /// - heart rate: minimum, mean (rounded half up) and maximum of its minutes with a value, and how many;
    /// - sports: its finished sports by start time, each with its steps, distance and `detail_data` (repetitions,
    ///   activity, the detail's distance).
    public init(date: CalendarDate, items: some Sequence<BandItem>) {
        var (steps, calories, distance) = (0, 0, 0)
        var sleep = Sleep(deep: 0, light: 0, awake: 0)
        var (minimum, maximum, sum, count) = (Int.max, 0, 0, 0)
        var sports: [Sport] = []
        var sportTotals: [SportTotal] = []
        var segments: [SleepSegment] = []
        for item in items {
            switch item {
            case .todayTotals(let totals), .dayTotals(_, let totals):
                steps += totals.steps
                calories += totals.calories
                distance += totals.distance
                sportTotals.append(
                    SportTotal(
                        type: Int(totals.sport.rawValue), steps: totals.steps, calories: totals.calories,
                        distance: totals.distance, count: totals.count))
            case .sport(let session):
                sports.append(
                    Sport(
                        type: Int(session.sport.rawValue), start: session.start.value, end: session.end.value,
                        calories: session.calories, steps: session.steps, distance: session.distance,
                        count: session.detail?.count, activity: session.detail?.activity,
                        detailDistance: session.detail?.distance))
            case .sleep(let segment):
                segments.append(
                    SleepSegment(type: Int(segment.type.rawValue), start: segment.start.value, end: segment.end.value))
                switch segment.type {
                case .deepSleep: sleep.deep += segment.minutes
                case .lightSleep: sleep.light += segment.minutes
                case .wakeUp: sleep.awake += segment.minutes
                case .startSleep, .endSleep, .placed: break
                }
            case .heartRate(let hour):
                for rate in hour.minutes.lazy.compactMap({ $0 }) {
                    minimum = min(minimum, rate)
                    maximum = max(maximum, rate)
                    sum += rate
                    count += 1
                }
            }
        }
        sports.sort { ($0.start, $0.type) < ($1.start, $1.type) }
        sportTotals.sort { $0.type < $1.type }
        segments.sort { ($0.start, $0.minutes, $0.type) < ($1.start, $1.minutes, $1.type) }
        let heartRate =
            count == 0
            ? nil
            : HeartRate(minimum: minimum, average: (2 * sum + count) / (2 * count), maximum: maximum, minutes: count)
        self.init(
            date: date, steps: steps, calories: calories, distance: distance, sleep: sleep, heartRate: heartRate,
            sports: sports, sportTotals: sportTotals, sleepSegments: segments)
    }
}

/// What a band sends besides its items: the wearer's presses, for ``SmartbandDriver/follow(into:events:stored:)``.
public enum BandEvent: Hashable, Sendable {
    /// The wearer pressed find-phone on the band.
    case findPhone
    /// The wearer pressed the camera button, in camera mode.
    case takePicture
}

/// The smartbands Fit Pro 9614N, Fit Pulse 9615N and Smartee Training 9616N, over VitalBridge's band codec
/// (``SmartbandGATT``).
///
/// Before it subscribes, the driver reads the band's clock (0xFFD3, ``BandTime``): each item of the link is moved
/// back by the clock's offset (``BandItem/movedBack(byMinutes:)``) and stored with how it was dated
/// (``BandItemDating``); once the band caught up and what it sent is committed, a clock more than 2 s off is set to
/// the hub's.
///
/// A band pushes what it holds as soon as the host subscribes to its data characteristic. The driver keeps the
/// items in batches of at most ``SmartbandGATT/window``, through the sink's ``RecordSink/storeBandItems(_:dating:)``,
/// and writes ``BandCommand/receivedThrough(_:)`` only after each batch is committed: a crash or a drop at any point
/// loses nothing the band forgot, and an item sent again replaces its stored self. A sync ends when the band
/// says it caught up; ``follow(into:events:stored:)`` goes on storing what the band pushes while the link holds.
public struct SmartbandDriver: DeviceDriver {
    public let entry: CatalogEntry
    public let connection: any BluetoothConnection
    /// The host's clock: today's totals are dated with its day.
    public let clock: @Sendable () -> Timestamp
    /// Items stored per commit; at most ``SmartbandGATT/window``, beyond which the band waits for an acknowledgement.
    public var batchSize = SmartbandGATT.window
    /// When the hub added the band: a band clock showing an earlier time had restarted.
    public var addedAt: Timestamp?
    /// What the last link learned of the band's clock (``BandClockReading``): `nil` until one read it, or when the
    /// band has no clock characteristic.
    public var lastClockReading: BandClockReading? { clockReadings.withLock { $0 } }
    let clockReadings = Locked<BandClockReading?>(nil)

    public init(
        entry: CatalogEntry, connection: any BluetoothConnection, clock: @escaping @Sendable () -> Timestamp
    ) {
        self.entry = entry
        self.connection = connection
        self.clock = clock
    }

    public func measure(
        _ options: MeasureOptions, into sink: any RecordSink, observer: @escaping @Sendable (LiveSample) -> Void
    ) async throws(DeviceError) -> DeviceRecord {
        throw DeviceError(.unsupported, message: "\(entry.model.name) does not take live measurements")
    }

    /// Stores everything the band holds until it says it caught up; returns how many items were stored.
    public func sync(into sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void)
        async throws(DeviceError) -> Int
    {
        var session = BandSession(driver: self, sink: sink, progress: progress)
        try await session.start()
        while true {
            if case .caughtUp = try await session.nextMessage() { return session.stored }
        }
    }

    /// Switches on the band's live pushing (sport data, hourly heart rate), then stores each item the moment the
    /// band pushes it, until the link drops (``DeviceError/Code/disconnected``) or the task is cancelled
    /// (``DeviceError/Code/cancelled``); everything acknowledged was committed first. `events` gets the wearer's
    /// presses; `stored` is called after each commit with the items stored on this link so far.
    public func follow(
        into sink: any RecordSink, events: @escaping @Sendable (BandEvent) -> Void = { _ in },
        stored: @escaping @Sendable (Int) -> Void = { _ in }
    ) async throws(DeviceError) -> Never {
        var session = BandSession(driver: self, sink: sink) { stored($0.stored) }
        try await session.start()
        try await session.run(.sportDataSwitch(true))
        try await session.run(.heartRateHourly(true))
        while true {
            switch try await session.nextMessage() {
            case .findPhone: events(.findPhone)
            case .takePicture: events(.takePicture)
            default: continue
            }
        }
    }

    /// Runs `command` on the band, storing everything the band pushes meanwhile (until what it received is
    /// committed and acknowledged); returns the band's answers before its result (the supported
    /// sports, whether a schedule exists). A refusal throws ``DeviceError/Code/deviceReported``.
    @discardableResult
    public func run(_ command: BandCommand, storingInto sink: any RecordSink) async throws(DeviceError)
        -> [BandMessage]
    {
        var session = BandSession(driver: self, sink: sink) { _ in }
        try await session.start()
        let answers = try await session.run(command)
        if command == .getToday {
            // the totals asked for follow the result; the band then says it caught up
            while true { if case .caughtUp = try await session.nextMessage() { break } }
        }
        while session.holdsUncommitted { _ = try await session.nextMessage() }
        return answers
    }
}

/// One link's exchange with a band: items are kept in a batch, committed and acknowledged when the batch is full
/// or the band says it caught up; other messages are handed back.
struct BandSession {
    let driver: SmartbandDriver
    let sink: any RecordSink
    let progress: @Sendable (SyncProgress) -> Void
    private var batch: [(item: BandItem, dating: BandItemDating)] = []
    /// The last item's number on this link.
    private var last: UInt32?
    /// How the link's items are placed: by the clock the link read, then, once the hub set it, by the hub's.
    private var clock: BandClockReading?
    /// Whether the band's clock said no time the codec reads: the hub sets it all the same.
    private var unreadableClock = false

    private(set) var stored = 0

    init(driver: SmartbandDriver, sink: any RecordSink, progress: @escaping @Sendable (SyncProgress) -> Void) {
        self.driver = driver
        self.sink = sink
        self.progress = progress
    }

    private var connection: any BluetoothConnection { driver.connection }

    /// Whether items were received and not yet committed: the band sends more until its batch is full or it
    /// caught up.
    var holdsUncommitted: Bool { !batch.isEmpty }
    private var size: Int { max(1, min(driver.batchSize, SmartbandGATT.window)) }
    private static let data = GATTCharacteristics.bandData
    private static let controlPoint = GATTCharacteristics.bandControlPoint

    /// Reads the band's clock, then subscribes to the band's data: it starts pushing what it holds. A link whose
    /// MTU cannot carry an hour of heart rate is refused first (its items would arrive cut).
    mutating func start() async throws(DeviceError) {
        let mtu = await connection.mtu
        guard mtu >= SmartbandGATT.minimumMTU else {
            throw DeviceError(
                .unsupported,
                message: "the link's MTU of \(mtu) is below the \(SmartbandGATT.minimumMTU) a smartband's items need")
        }
        if await connection.offers(GATTCharacteristics.bandTime) { try await readClock() }
        try await connection.subscribe(Self.data)
    }

    /// Reads the band's clock (``BandClockReading``). A clock that says no time the codec reads is set all the same
    /// once what the band sent is committed, that sent kept as the band dated it, unverified.
    private mutating func readClock() async throws(DeviceError) {
        let hubTime = driver.clock()
        let bytes = try await connection.read(GATTCharacteristics.bandTime)
        guard let shown = try? BandTime(bytes: bytes) else {
            unreadableClock = true
            return
        }
        let earlier: BandItemDating?
        do {
            earlier = try await sink.latestBandDating()
        } catch {
            throw DeviceError(.storeFailed, message: "cannot read how the band's items were dated: \(error)")
        }
        let reading = BandClockReading(
            bandTime: shown.time, hubTime: hubTime, addedAt: driver.addedAt, earlier: earlier)
        clock = reading
        driver.clockReadings.withLock { $0 = reading }
    }

    /// Sets the band's clock to the hub's when the link found it more than 2 s off, once: what the band sends from
    /// then on is dated by the right clock.
    private mutating func setClockIfNeeded() async {
        guard unreadableClock || clock.map({ $0.needsSetting && !$0.wasSet }) == true else { return }
        let now = driver.clock()
        do {
            try await connection.write(GATTCharacteristics.bandTime, BandTime(now).encoded)
        } catch {
            // everything the band sent is committed: a clock left off is read again on the next link
            return
        }
        unreadableClock = false
        if var reading = clock {
            reading.wasSet = true
            driver.clockReadings.withLock { $0 = reading }
        }
        // what the band sends from now on is dated by the hub's clock (the band dates what it had not sent yet by
        // the new clock too: the codec's rule)
        clock = BandClockReading(bandTime: now, hubTime: now)
        clock?.wasSet = true
    }

    /// Writes `command` and waits for its result; returns the other messages before it (not items).
    @discardableResult
    mutating func run(_ command: BandCommand) async throws(DeviceError) -> [BandMessage] {
        try await connection.write(Self.controlPoint, command.encoded)
        var answers: [BandMessage] = []
        while true {
            let message = try await nextMessage()
            guard case .commandResult(command.opCode, let success) = message else {
                if case .caughtUp = message {} else { answers.append(message) }
                continue
            }
            guard success else {
                let opCode = String(command.opCode, radix: 16, uppercase: true)
                throw DeviceError(
                    .deviceReported, message: "the band refused command \(opCode.count == 1 ? "0" : "")\(opCode)")
            }
            return answers
        }
    }

    /// The next message that is not an item, after storing the items before it as their batches fill; at
    /// ``BandMessage/caughtUp(last:)`` the batch is stored and acknowledged.
    mutating func nextMessage() async throws(DeviceError) -> BandMessage {
        while true {
            try driver.checkCancellation()
            let event: GATTEvent
            do {
                event = try await connection.nextEvent()
            } catch {
                // the link is gone: what arrived is kept all the same (the band, unacknowledged, sends it again)
                if error.code == .disconnected { try await store() }
                throw error
            }
            guard case .notification(Self.data, let bytes) = event else { continue }
            let message: BandMessage
            do {
                message = try BandMessage(bytes: bytes)
            } catch {
                throw DeviceError(.protocolViolation, message: "\(error)")
            }
            switch message {
            case .item(let sequence, let item):
                if let last, sequence <= last {
                    throw DeviceError(
                        .protocolViolation, message: "the band sent item \(sequence) after item \(last)")
                }
                last = sequence
                // placed by the link's clock as it arrives (today's totals dated with the band's day then: a batch
                // committed after midnight keeps yesterday's)
                let now = driver.clock()
                batch.append(clock?.place(item, at: now) ?? (item.dated(today: now.day), .unread))
                if batch.count == size { try await commit() }
            case .caughtUp(let through):
                if let last, through != last {
                    throw DeviceError(
                        .protocolViolation, message: "the band said it caught up at item \(through) after item \(last)")
                }
                try await commit()
                await setClockIfNeeded()
                return message
            default:
                return message
            }
        }
    }

    /// Stores the batch, then tells the band it may forget it.
    private mutating func commit() async throws(DeviceError) {
        guard !batch.isEmpty, let last else { return }
        try await store()
        try await connection.write(Self.controlPoint, BandCommand.receivedThrough(last).encoded)
        progress(SyncProgress(stored: stored, expected: nil))
        // A band that always has more (a simulated one whose time runs at once) would otherwise keep its thread for
        // as long as it is followed: each batch lets the process's other tasks run, among them the one that ends
        // the following (a service's loop, on a pool whose other threads wait for a child process).
        await Task.yield()
    }

    /// Stores the batch (a sink failure is ``DeviceError/Code/storeFailed``).
    private mutating func store() async throws(DeviceError) {
        guard !batch.isEmpty else { return }
        do {
            try await sink.storeBandItems(dated: batch)
        } catch {
            throw DeviceError(.storeFailed, message: "the store refused \(batch.count) band item(s): \(error)")
        }
        stored += batch.count
        batch.removeAll(keepingCapacity: true)
    }
}

// MARK: - State, schedule info and checked schedules

extension SmartbandDriver {
    /// The band's state (``BandCommand/getStatus``): to whom it is bound and its switches; what the band pushes
    /// meanwhile is stored.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` if the band does not say.
    public func status(storingInto sink: any RecordSink) async throws(DeviceError) -> BandStatus {
        for answer in try await run(.getStatus, storingInto: sink) {
            if case .status(let status) = answer { return status }
        }
        throw DeviceError(.protocolViolation, message: "the band did not report its state")
    }

    /// The band's schedule information (``BandCommand/readScheduleInfo``): how many entries a day it holds and
    /// the minutes it holds entries at.
    ///
    /// - Throws: ``DeviceError/Code/protocolViolation`` if the band does not say, or lists another number of
    ///   entries than it announced.
    public func scheduleInfo(storingInto sink: any RecordSink) async throws(DeviceError) -> BandScheduleInfo {
        var header: (maximumPerDay: Int, count: Int)?
        var slots: [BandScheduleSlot] = []
        for answer in try await run(.readScheduleInfo, storingInto: sink) {
            switch answer {
            case .scheduleInfo(let maximumPerDay, let count): header = (maximumPerDay, count)
            case .scheduleSlot(let slot): slots.append(slot)
            default: continue
            }
        }
        guard let header else { throw DeviceError(.protocolViolation, message: "the band sent no schedule info") }
        guard slots.count == header.count else {
            throw DeviceError(
                .protocolViolation,
                message: "the band announced \(header.count) schedule entries and listed \(slots.count)")
        }
        return BandScheduleInfo(maximumPerDay: header.maximumPerDay, slots: slots)
    }

    /// Writes `schedule` once the band's entries allow it (``BandSchedule/check(adding:toSlots:)``, against what
    /// ``scheduleInfo(storingInto:)`` lists): a fifth entry on a day or a second at a minute is refused by name
    /// before anything is written.
    ///
    /// - Throws: ``BandSettingError`` naming `schedule.date` or `schedule.time`; `DeviceError` if the band fails.
    public func writeChecked(_ schedule: BandSchedule, storingInto sink: any RecordSink) async throws {
        let info = try await scheduleInfo(storingInto: sink)
        try BandSchedule.check(adding: schedule, toSlots: info.slots)
        guard info.slots.filter({ $0.date == schedule.date }).count < info.maximumPerDay else {
            throw BandSettingError(
                "schedule.date",
                "the band holds at most \(info.maximumPerDay) entries a day (\(schedule.date) has them)")
        }
        try await run(.writeSchedule(schedule), storingInto: sink)
    }

    /// The sports the band supports with its own names and units (``BandCommand/getSupportedSports``).
    public func supportedSports(storingInto sink: any RecordSink) async throws(DeviceError)
        -> (list: BandSupportedSports, names: [BandSportName])
    {
        var list: BandSupportedSports?
        var names: [BandSportName] = []
        for answer in try await run(.getSupportedSports, storingInto: sink) {
            switch answer {
            case .supportedSports(let sports): list = sports
            case .sportName(let name): names.append(name)
            default: continue
            }
        }
        guard let list else { throw DeviceError(.protocolViolation, message: "the band did not list its sports") }
        return (list, names)
    }
}
