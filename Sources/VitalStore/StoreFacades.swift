/// The readings of a store (`store.readings`): storing what a device sent, deleting a reading, reading them back,
/// and the items a device pushed for a day.
public struct ReadingsStore: Sendable {
    let file: StoreFile
}

/// The delivery journal of a store (`store.journal`): what each caller is owed, what is reserved for a hand-off in
/// progress, and the callbacks handed over.
public struct DeliveryJournal: Sendable {
    let file: StoreFile
}

/// The people of a home (`store.people`), the devices' user indexes assigned to them and the callers that act for
/// them.
public struct PeopleStore: Sendable {
    let file: StoreFile
}

/// The change feed of a store (`store.feed`): every change to what the hub exports, in commit order.
public struct FeedStore: Sendable {
    let file: StoreFile
}

/// The sinks of a home (`store.sinks`) and how far each has taken the feed.
public struct SinksStore: Sendable {
    let file: StoreFile
}

extension VitalStore {
    /// The readings: ``ReadingsStore``.
    public var readings: ReadingsStore { ReadingsStore(file: file) }
    /// The delivery journal: ``DeliveryJournal``.
    public var journal: DeliveryJournal { DeliveryJournal(file: file) }
    /// The people: ``PeopleStore``.
    public var people: PeopleStore { PeopleStore(file: file) }
    /// The change feed: ``FeedStore``.
    public var feed: FeedStore { FeedStore(file: file) }
    /// The sinks: ``SinksStore``.
    public var sinks: SinksStore { SinksStore(file: file) }
}
