import Testing
import VitalCore
import VitalStore

/// `ChangeBatch.latest`: the latest reading of each (owner, kind) a batch touches, by measurement time, of exported
/// readings only, as the MQTT sink shows them to Home Assistant.
@Suite("Each owner's latest reading of a kind (ChangeBatch.latest)")
struct LatestReadingsTests {
    static let added = Timestamp(secondsSince1970: 1_764_000_000)
    static let thermometer = MACAddress("004D3208D2F4")!
    static let scale = PeopleTests.scale

    static func temperature(_ minute: Int64, _ celsius: Double) -> Reading {
        .temperature(
            TemperatureReading(celsius: celsius, measuredAt: Timestamp(secondsSince1970: 1_763_700_000 + minute * 60)))
    }

    static func home() throws -> VitalStore {
        let store = try VitalStore()
        try store.saveDevice(StoredDevice(mac: thermometer, model: .healthThermometer, addedAt: added))
        try store.saveDevice(StoredDevice(mac: scale, model: .weightScale, addedAt: added))
        return store
    }

    /// The batch after `position` with its latest readings, each as (person, kind, value).
    static func latest(_ store: VitalStore, after position: Int64) throws -> [LatestReading] {
        try store.sinks.changeBatch(after: position, limit: 1_000, latest: .touched).latest
    }

    @Test("the home's latest is the one measured last: an older record stored later does not replace it")
    func byMeasurementTime() throws {
        let store = try Self.home()
        try store.readings.store([Self.temperature(10, 36.6)], device: Self.thermometer)
        var latest = try Self.latest(store, after: 0)
        #expect(latest.count == 1 && latest[0].owner == .home && latest[0].person == nil)
        #expect(latest[0].kind == .temperature && latest[0].reading?.reading == Self.temperature(10, 36.6))

        let position = try store.feed.end().sequence
        try store.readings.store([Self.temperature(5, 37.9)], device: Self.thermometer)
        latest = try Self.latest(store, after: position)
        #expect(latest.map(\.reading?.reading) == [Self.temperature(10, 36.6)])
        // without asking, a batch carries none
        #expect(try store.sinks.changeBatch(after: 0, limit: 10).latest.isEmpty)
    }

    @Test("deleting the latest makes the one before it the latest; deleting the last leaves none")
    func deletions() throws {
        let store = try Self.home()
        let ids = try store.readings.store(
            [Self.temperature(1, 36.5), Self.temperature(2, 36.9)], device: Self.thermometer)
        var position = try store.feed.end().sequence
        try store.readings.delete(ids[1], reason: "the child had just had tea", at: Self.added)
        var latest = try Self.latest(store, after: position)
        #expect(latest.map(\.reading?.id) == [ids[0]])

        position = try store.feed.end().sequence
        try store.readings.delete(ids[0], reason: "wrong person", at: Self.added)
        latest = try Self.latest(store, after: position)
        #expect(latest.count == 1 && latest[0].kind == .temperature && latest[0].reading == nil)
    }

    @Test(
        "a person's latest counts only readings their assignment holds; quarantine is no one's; a user index's change asks everyone the home had"
    )
    func people() throws {
        let store = try Self.home()
        try store.people.add("Ann")
        try store.people.add("Bob")
        try store.readings.store(
            [PeopleTests.weight(1, user: 1, kilograms: 61), PeopleTests.weight(2, user: 2, kilograms: 82)],
            device: Self.scale)
        // both indexes in quarantine: no change in the feed, nothing latest
        #expect(try Self.latest(store, after: 0).isEmpty)

        try store.people.assign(device: Self.scale, userIndex: 1, to: "Ann")
        var latest = try Self.latest(store, after: 0)
        #expect(latest.map(\.owner) == [.person(1), .person(2)] && latest.map(\.person) == ["Ann", "Bob"])
        #expect(latest.allSatisfy { $0.kind == .weight })
        #expect(latest.map(\.reading?.reading) == [PeopleTests.weight(1, user: 1, kilograms: 61), nil])

        // Bob's index stays in quarantine: a newer reading of it is no one's, and changes nothing in the feed
        var position = try store.feed.end().sequence
        try store.readings.store([PeopleTests.weight(3, user: 2, kilograms: 83)], device: Self.scale)
        #expect(try store.feed.end().sequence == position)

        try store.people.unassign(device: Self.scale, userIndex: 1)
        try store.people.remove("Ann")
        latest = try Self.latest(store, after: position)
        // the deletion names no person any more: every person the home had is asked, Ann (removed) and Bob
        #expect(latest.map(\.owner) == [.person(1), .person(2)] && latest.allSatisfy { $0.reading == nil })
        #expect(latest.map(\.person) == [nil, "Bob"])
        #expect(try store.sinks.ownersEver() == [.home, .person(1), .person(2)])

        position = try store.feed.end().sequence
        try store.people.assign(device: Self.scale, userIndex: 2, to: "Bob")
        latest = try Self.latest(store, after: position)
        #expect(latest.map(\.person) == [nil, "Bob"])
        #expect(latest.map(\.reading?.reading) == [nil, PeopleTests.weight(3, user: 2, kilograms: 83)])
    }

    @Test(
        "an index given to another person before a push: the feed keeps only the new person's insert, and the old person's latest is asked too"
    )
    func reassigned() throws {
        let store = try Self.home()
        try store.people.add("Ann")
        try store.people.add("Bob")
        try store.people.assign(device: Self.scale, userIndex: 1, to: "Ann")
        try store.readings.store([PeopleTests.weight(1, user: 1, kilograms: 61)], device: Self.scale)
        let position = try store.feed.end().sequence
        try store.people.unassign(device: Self.scale, userIndex: 1)
        try store.people.assign(device: Self.scale, userIndex: 1, to: "Bob")
        let batch = try store.sinks.changeBatch(after: position, limit: 10, latest: .touched)
        #expect(batch.changes.map(\.operation) == [.insert] && batch.changes[0].person == "Bob")
        #expect(batch.latest.map(\.person) == ["Ann", "Bob"])
        #expect(batch.latest.map(\.reading?.reading) == [nil, PeopleTests.weight(1, user: 1, kilograms: 61)])
    }

    @Test(
        "every owner's latest of every kind, for a new connection: none where an owner has no reading, even without changes"
    )
    func every() throws {
        let store = try Self.home()
        try store.people.add("Ann")
        try store.people.assign(device: Self.scale, userIndex: 1, to: "Ann")
        try store.readings.store([PeopleTests.weight(1, user: 1, kilograms: 61)], device: Self.scale)
        try store.readings.store([Self.temperature(1, 36.5)], device: Self.thermometer)
        let end = try store.feed.end().sequence
        let batch = try store.sinks.changeBatch(after: end, limit: 10, latest: .every)
        #expect(batch.changes.isEmpty && batch.through == end)
        #expect(batch.latest.count == 2 * ReadingKind.allCases.count)
        let found = batch.latest.filter { $0.reading != nil }.map { "\($0.owner) \($0.kind)" }
        #expect(found == ["person(1) weight", "home temperature"])
    }

    @Test("a correction of the latest is the latest as corrected")
    func correction() throws {
        let store = try Self.home()
        let ids = try store.readings.store([FeedTests.weight(1), FeedTests.weight(2)], device: Self.thermometer)
        let position = try store.feed.end().sequence
        try store.readings.store(
            [FeedTests.weight(2, fat: 20)], device: Self.thermometer, merging: FeedTests.completing)
        let latest = try Self.latest(store, after: position)
        #expect(latest.map(\.reading?.id) == [ids[1]])
        #expect(latest.map(\.reading?.reading) == [FeedTests.weight(2, fat: 20)])
    }

    @Test("a batch asks only for the owners and kinds its changes touch")
    func onlyTouched() throws {
        let store = try Self.home()
        try store.people.add("Ann")
        try store.people.assign(device: Self.scale, userIndex: 1, to: "Ann")
        try store.readings.store([PeopleTests.weight(1, user: 1, kilograms: 61)], device: Self.scale)
        let position = try store.feed.end().sequence
        try store.readings.store([Self.temperature(1, 36.5)], device: Self.thermometer)
        let latest = try Self.latest(store, after: position)
        #expect(latest.map(\.kind) == [.temperature] && latest[0].owner == .home)
    }
}
