import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// An enrolment on a device with a User Data Service: a person's user index with a consent code and a span, so that
/// readings measured while the index was theirs stay theirs after it ends, and a later user of the index is not
/// filed under them.
@Suite("Enrolments and their spans")
struct EnrolmentStoreTests {
    static let scale = PeopleTests.scale
    /// Minute 100 from the readings' epoch: when an enrolment ends in these tests.
    static let end = Timestamp(secondsSince1970: 1_763_700_000 + 100 * 60)

    static func weight(_ minute: Int64, user: UInt8) -> Reading {
        PeopleTests.weight(minute, user: user, kilograms: 60 + Double(minute) / 10)
    }

    static func readings(_ store: VitalStore, _ selection: ReadingSelection) throws -> [Reading] {
        var readings: [Reading] = []
        try store.readings.forEach(selection: selection) { readings.append($0.reading) }
        return readings
    }

    /// A home with Ann and Bob, each with a caller, Bob enrolled as user 2 of the scale with readings at minutes 1
    /// and 2.
    static func home() throws -> VitalStore {
        let store = try VitalStore()
        try store.people.add(
            "Ann", profile: PersonProfile(born: CalendarDate(year: 1980, month: 5, day: 17), heightCentimetres: 168))
        try store.people.add("Bob", profile: PersonProfile(sex: .male))
        try store.people.setPerson("Ann", forCaller: "ann.app")
        try store.people.setPerson("Bob", forCaller: "bob.app")
        try store.readings.store([weight(1, user: 2), weight(2, user: 2)], device: scale)
        #expect(
            try store.people.enroll(
                "Bob", device: scale, userIndex: 2, consentCode: 2222, changeIncrement: 1) == 2)
        return store
    }

    @Test("an enrolment releases its index's readings to its person, and a sync finds it with its consent code")
    func enrol() throws {
        let store = try Self.home()
        #expect(
            try PeopleTests.deliver(store, Self.scale, to: "bob.app").map(\.reading) == [
                Self.weight(1, user: 2), Self.weight(2, user: 2),
            ])
        #expect(try PeopleTests.deliver(store, Self.scale, to: "ann.app").isEmpty)
        let enrolments = try store.people.enrolments(on: Self.scale)
        #expect(
            enrolments == [
                Enrolment(
                    person: "Bob", device: Self.scale, userIndex: 2, consentCode: 2222, changeIncrement: 1,
                    profile: PersonProfile(sex: .male), profileVersion: 0, writtenProfileVersion: 0)
            ])
        #expect(try store.people.enrolments(on: PeopleTests.monitor).isEmpty)
        let bob = try #require(try store.people.all().first { $0.name == "Bob" })
        #expect(bob.assignments == [Assignment(device: Self.scale, userIndex: 2, isEnrolment: true)])
        let ann = try #require(try store.people.all().first { $0.name == "Ann" })
        #expect(ann.profile.born?.description == "1980-05-17" && ann.profile.heightCentimetres == 168)
    }

    @Test(
        "an ended enrolment keeps its readings; one measured after the end is no one's, nor a new enrolment's before it"
    )
    func span() throws {
        let store = try Self.home()
        let feedStart = try store.feed.end()
        let ended = try store.people.endEnrolment(of: "Bob", on: Self.scale, at: Self.end)
        #expect(ended.userIndex == 2 && ended.consentCode == 2222)
        #expect(try store.people.enrolments(on: Self.scale).isEmpty)
        // Bob's readings stay his: for his caller, in the feed (no deletion), never in quarantine
        #expect(try store.feed.changes(after: feedStart, limit: 10).isEmpty)
        #expect(try Self.readings(store, .quarantined).isEmpty)
        #expect(try PeopleTests.deliver(store, Self.scale, to: "bob.app").count == 2)
        // a user the scale registers in slot 2 afterwards measures: no one's
        try store.readings.store([Self.weight(101, user: 2), Self.weight(102, user: 2)], device: Self.scale)
        #expect(try PeopleTests.deliver(store, Self.scale, to: "bob.app").isEmpty)
        #expect(try Self.readings(store, .quarantined) == [Self.weight(101, user: 2), Self.weight(102, user: 2)])
        // Ann enrols in that slot: she gets what was measured from the end on, never Bob's
        #expect(
            try store.people.enroll(
                "Ann", device: Self.scale, userIndex: 2, consentCode: 4321, changeIncrement: 0) == 2)
        #expect(
            try PeopleTests.deliver(store, Self.scale, to: "ann.app").map(\.reading) == [
                Self.weight(101, user: 2), Self.weight(102, user: 2),
            ])
        let changes = try store.feed.changes(after: feedStart, limit: 10)
        #expect(changes.map(\.operation) == [.insert, .insert] && changes.allSatisfy { $0.person == "Ann" })
        let bob = try #require(try store.people.all().first { $0.name == "Bob" })
        #expect(bob.assignments == [Assignment(device: Self.scale, userIndex: 2, until: Self.end, isEnrolment: true)])
        // the feed names each reading's person by its span
        var people: [String?] = []
        var cursor = try store.feed.start()
        while case let page = try store.feed.changes(after: cursor, limit: 10), let last = page.last {
            people += page.map(\.person)
            cursor = FeedCursor(hubID: cursor.hubID, sequence: last.sequence)
        }
        #expect(people == ["Bob", "Bob", "Ann", "Ann"])
    }

    @Test("a reading measured after the end but stored before it is deleted from the feed as back in quarantine")
    func measuredAfterEnd() throws {
        let store = try Self.home()
        // a device clock ahead: a reading of Bob's index measured after the hub ends his enrolment
        try store.readings.store([Self.weight(200, user: 2)], device: Self.scale)
        let before = try store.feed.end()
        try store.people.endEnrolment(of: "Bob", on: Self.scale, at: Self.end)
        let changes = try store.feed.changes(after: before, limit: 10)
        #expect(changes.map(\.operation) == [.delete])
        #expect(changes.first?.reason == ReadingChange.quarantineReason)
        #expect(try Self.readings(store, .quarantined) == [Self.weight(200, user: 2)])
    }

    @Test("unassign undoes a mistaken assignment only: an enrolment ends with its readings kept")
    func unassign() throws {
        let store = try Self.home()
        #expect {
            try store.people.unassign(device: Self.scale, userIndex: 2)
        } throws: { "\($0)".contains("Bob is enrolled") && "\($0)".contains("people forget Bob") }
        try store.people.endEnrolment(of: "Bob", on: Self.scale, at: Self.end)
        // a mistaken assignment of the slot after Bob: undone, it returns only what it held to quarantine
        try store.readings.store([Self.weight(101, user: 2)], device: Self.scale)
        #expect(try store.people.assign(device: Self.scale, userIndex: 2, to: "Ann") == 1)
        #expect(try store.people.unassign(device: Self.scale, userIndex: 2) == 1)
        #expect(try Self.readings(store, .quarantined) == [Self.weight(101, user: 2)])
        #expect(try PeopleTests.deliver(store, Self.scale, to: "bob.app").count == 2)
    }

    @Test("refusals: enrolled twice, a slot held, no enrolment to end, a person with readings by an ended one")
    func refusals() throws {
        let store = try Self.home()
        func refused(_ message: String, _ body: () throws -> Void) {
            #expect {
                try body()
            } throws: { "\($0)".contains(message) }
        }
        refused("Bob is user 2 of \(Self.scale) already") {
            try store.people.enroll(
                "Bob", device: Self.scale, userIndex: 3, consentCode: 1, changeIncrement: 0)
        }
        refused("assigned to Bob already") {
            try store.people.enroll(
                "Ann", device: Self.scale, userIndex: 2, consentCode: 1, changeIncrement: 0)
        }
        refused("Ann is not enrolled") { try store.people.endEnrolment(of: "Ann", on: Self.scale, at: Self.end) }
        try store.people.endEnrolment(of: "Bob", on: Self.scale, at: Self.end)
        refused("Bob is not enrolled") { try store.people.endEnrolment(of: "Bob", on: Self.scale, at: Self.end) }
        try store.people.setPerson(nil, forCaller: "bob.app")
        refused("unassign them first") { try store.people.remove("Bob") }
        #expect(try store.people.all().map(\.name) == ["Ann", "Bob"])
    }

    @Test("a sync keeps the change increment it wrote, and adopts the device's newer data under a new version")
    func recordSync() throws {
        let store = try Self.home()
        var bob = try #require(try store.people.enrolments(on: Self.scale).first)
        try store.people.recordSync(of: bob, changeIncrement: 2, profileVersion: 0)
        bob = try #require(try store.people.enrolments(on: Self.scale).first)
        #expect(bob.changeIncrement == 2 && bob.writtenProfileVersion == 0)
        let measured = PersonProfile(
            born: CalendarDate(year: 1975, month: 1, day: 2), heightCentimetres: 181, sex: .male)
        try store.people.recordSync(of: bob, changeIncrement: 5, profileVersion: 0, adopted: measured)
        bob = try #require(try store.people.enrolments(on: Self.scale).first)
        #expect(bob.changeIncrement == 5 && bob.profile == measured)
        #expect(bob.profileVersion == 1 && bob.writtenProfileVersion == 1)
        try store.people.endEnrolment(of: "Bob", on: Self.scale, at: Self.end)
        #expect {
            try store.people.recordSync(of: bob, changeIncrement: 6, profileVersion: 1)
        } throws: { "\($0)".contains("no longer enrolled") }
    }

    @Test("data a person's data changed to during a sync or an enrolment win over the device's: none adopted")
    func changedMeanwhile() throws {
        let store = try Self.home()
        let bob = try #require(try store.people.enrolments(on: Self.scale).first)
        let measured = PersonProfile(heightCentimetres: 181)
        // the sync read version 0; people set made version 1 before it kept what it read from the device
        let typed = try store.people.update("Bob", with: PersonProfile(heightCentimetres: 183))
        try store.people.recordSync(of: bob, changeIncrement: 5, profileVersion: 0, adopted: measured)
        let kept = try #require(try store.people.enrolments(on: Self.scale).first)
        #expect(kept.profile == typed && kept.changeIncrement == 5)
        // the device has version 0: the next sync sees the home's changed, and writes them
        #expect(kept.profileVersion == 1 && kept.writtenProfileVersion == 0)
        // an enrolment that read version 1 while the person moved on to 2 adopts nothing either
        try store.people.add("Cy")
        _ = try store.people.update("Cy", with: PersonProfile(sex: .male))
        _ = try store.people.update("Cy", with: PersonProfile(sex: .female))
        try store.people.enroll(
            "Cy", device: Self.scale, userIndex: 9, consentCode: 9, changeIncrement: 1, profileVersion: 1,
            adopted: measured)
        let cy = try #require(try store.people.enrolments(on: Self.scale).first { $0.person == "Cy" })
        #expect(cy.profile == PersonProfile(sex: .female) && cy.writtenProfileVersion == 1 && cy.profileVersion == 2)
    }
}
