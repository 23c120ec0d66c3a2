import Foundation
internal import GRDB
import VitalCore

/// The items a device pushed for a day (`day_item`), kept as they came, and the day readings made from them.
extension ReadingsStore {
    /// Keeps `items` of device `mac` as they came and revises the summary of each day they change, in one
    /// transaction: what a smartband pushed is durable once this returns.
    ///
    /// An item with the date, kind and key of one stored replaces it (today's running totals, updated in place); an
    /// item stored already changes nothing. For each day whose items changed, `summarize` makes the day's reading
    /// from all its items, oldest kind and key first. A new day's reading is stored and pending for every caller
    /// that asked for the device; a day whose reading changed is revised in place and pending again for each of
    /// them, including those it was delivered to. `summarize`'s errors pass through as ``StoreError``s.
    ///
    /// - Returns: how many day readings were stored or revised.
    @discardableResult
    public func storeDayItems(
        _ items: [DayItem], device mac: MACAddress, summarize: (CalendarDate, [DayItem]) throws -> Reading
    ) throws(StoreError) -> Int {
        try file.write("store a device's items") { db in
            let macText = mac.description
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO day_item (device_mac, day, kind, key, bytes) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (device_mac, day, kind, key) DO UPDATE SET bytes = excluded.bytes
                    WHERE bytes IS NOT excluded.bytes
                    """)
            var days: [CalendarDate] = []
            for item in items {
                try upsert.execute(
                    arguments: [macText, item.date.daysSince1970, item.kind, item.key, Data(item.bytes)])
                if db.changesCount > 0, !days.contains(item.date) { days.append(item.date) }
            }
            let dayItems = try db.cachedStatement(
                sql: "SELECT kind, key, bytes FROM day_item WHERE device_mac = ? AND day = ? ORDER BY kind, key")
            var writer = ReadingWriter(db, device: macText)
            var changed = 0
            for day in days {
                let stored = try Row.fetchAll(dayItems, arguments: [macText, day.daysSince1970]).map {
                    DayItem(date: day, kind: $0[0], key: $0[1], bytes: [UInt8]($0[2] as Data))
                }
                let reading = try summarize(day, stored)
                let id: Int64
                if let stored = try writer.stored(reading.kind, at: reading.measuredAt).first {
                    // a day the user deleted stays deleted, whatever the band adds to it
                    guard stored.reading != reading, !stored.deleted else { continue }
                    id = stored.id
                    try writer.revise(id, to: reading)
                } else {
                    id = try writer.insert(reading)
                }
                try writer.queue(id, at: reading.measuredAt, attributed: false)
                changed += 1
            }
            return changed
        }
    }

    /// The item of device `mac`'s most recent day with the highest kind and key, if it pushed any.
    public func latestDayItem(device mac: MACAddress) throws(StoreError) -> DayItem? {
        try file.query("read a device's latest item") { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT day, kind, key, bytes FROM day_item WHERE device_mac = ?
                    ORDER BY day DESC, kind DESC, key DESC LIMIT 1
                    """, arguments: [mac.description]
            ).map {
                DayItem(
                    date: CalendarDate(daysSince1970: $0[0]), kind: $0[1], key: $0[2], bytes: [UInt8]($0[3] as Data))
            }
        }
    }

    /// The items device `mac` pushed, by day, then kind and key, from `since` on when given: what day summaries are
    /// made of (a smartband's heart-rate minutes), read from the file as it goes.
    public func forEachDayItem(device mac: MACAddress, since: CalendarDate? = nil, _ body: (DayItem) throws -> Void)
        throws(StoreError)
    {
        try file.query("read a device's items") { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT day, kind, key, bytes FROM day_item WHERE device_mac = ? AND day >= ?
                    ORDER BY day, kind, key
                    """, arguments: [mac.description, since?.daysSince1970 ?? Int.min])
            while let row = try rows.next() {
                try body(
                    DayItem(
                        date: CalendarDate(daysSince1970: row[0]), kind: row[1], key: row[2],
                        bytes: [UInt8](row[3] as Data)))
            }
        }
    }
}
