/// An item a device pushed for one day, kept as it came (a smartband's totals, sport, sleep segment or heart-rate
/// hour): what the day's summary reading is made from.
public struct DayItem: Hashable, Sendable {
    public var date: CalendarDate
    /// What the item is, by the device's own type code.
    public var kind: Int
    /// What tells the item from the day's others of its kind (a sport code, a start minute, an hour): an item with
    /// the date, kind and key of a stored one replaces it.
    public var key: Int
    /// The item as the device sent it.
    public var bytes: [UInt8]

    public init(date: CalendarDate, kind: Int, key: Int, bytes: [UInt8]) {
        self.date = date
        self.kind = kind
        self.key = key
        self.bytes = bytes
    }
}
