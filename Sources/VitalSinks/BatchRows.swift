import PostgresNIO
import SinkSettings
import VitalCore

/// A `ChangeBatch` taken apart into columns: the readings to upsert and the deletions, each reading once (its
/// newest change in the batch), and the statements that apply them with `unnest` (one statement for all the
/// upserts, one for all the deletions, whatever the batch's size).
struct BatchRows {
    private let devices: [ChangeBatch.Device]
    // the upserts, column by column
    private var readingIDs: [Int64?] = []
    private var versions: [Int64?] = []
    private var measuredAt: [Int64?] = []
    private var kinds: [String?] = []
    private var deviceMACs: [String?] = []
    private var people: [String?] = []
    private var userIndexes: [Int16?] = []
    private var deviceTimes: [Int64?] = []
    private var flags: [String?] = []
    private var unavailable: [String?] = []
    private var typed: [[FieldValue?]]
    // the deletions
    private var deletedIDs: [Int64?] = []
    private var deletedVersions: [Int64?] = []
    private var reasons: [String?] = []

    var upsertCount: Int { readingIDs.count }
    var deletionCount: Int { deletedIDs.count }

    /// For each kind (by ordinal), its fields that have a typed column, with the column's index.
    private static let columnsOfKind: [[(index: Int, field: ReadingField)]] = ReadingKind.allCases.map { kind in
        kind.fields.compactMap { field in
            guard let column = field.column,
                let index = SinkSchema.typedColumns.firstIndex(where: { $0.column == column })
            else { return nil }
            return (index, field)
        }
    }

    init(_ batch: ChangeBatch) throws(SinkError) {
        devices = batch.devices
        typed = Array(repeating: [], count: SinkSchema.typedColumns.count)
        // each reading's newest change: an older one in the same batch would be superseded anyway, and one
        // statement may not touch a row twice
        var newest: [Int64: ReadingChange] = [:]
        for change in batch.changes where (newest[change.readingID]?.version ?? .min) < change.version {
            newest[change.readingID] = change
        }
        for change in newest.values.sorted(by: { $0.version < $1.version }) {
            switch change.operation {
            case .delete:
                deletedIDs.append(change.readingID)
                deletedVersions.append(change.version)
                reasons.append(change.reason)
            case .insert, .update:
                guard let reading = change.reading else {
                    throw SinkError(
                        .unwritableReading,
                        "change \(change.sequence) (\(change.operation.rawValue) of reading \(change.readingID)) carries no reading"
                    )
                }
                try append(change, reading)
            }
        }
    }

    private mutating func append(_ change: ReadingChange, _ reading: Reading) throws(SinkError) {
        let annotations = reading.annotations
        readingIDs.append(change.readingID)
        versions.append(change.version)
        measuredAt.append(reading.measuredAt.secondsSince1970)
        kinds.append(reading.kind.rawValue)
        deviceMACs.append(change.device.description)
        people.append(change.person)
        userIndexes.append(annotations.userIndex.map(Int16.init))
        deviceTimes.append(annotations.deviceTime?.secondsSince1970)
        // status names are identifiers: an array literal needs no quoting
        flags.append("{" + annotations.status.names.joined(separator: ",") + "}")
        let missing = reading.unavailableFields
        if missing.isEmpty {
            unavailable.append(nil)
        } else {
            let entries = missing.map { field, value in
                let key = field.column.map(SinkSchema.columnName) ?? field.name ?? "?"
                return "\"\(key)\":\"\(value.description)\""
            }
            unavailable.append("{" + entries.joined(separator: ",") + "}")
        }
        let row = readingIDs.count - 1
        for index in typed.indices { typed[index].append(nil) }
        for (index, field) in Self.columnsOfKind[reading.kind.ordinal] {
            typed[index][row] = field.value(in: reading)
        }
    }

    /// The devices' upsert.
    func devicesQuery(hub: String) -> PostgresQuery {
        """
        INSERT INTO vitalbridge.devices AS d (hub_id, mac, model, model_name, serial, firmware)
        SELECT \(hub)::uuid, u.* FROM unnest(
            \(ColumnArray(.text(devices.map { $0.mac.description })))::text[],
            \(ColumnArray(.int32(devices.map { Int32(clamping: $0.model.rawValue) })))::integer[],
            \(ColumnArray(.text(devices.map { $0.model.name })))::text[],
            \(ColumnArray(.text(devices.map(\.serialNumber))))::text[],
            \(ColumnArray(.text(devices.map(\.firmwareRevision))))::text[]
        ) AS u(mac, model, model_name, serial, firmware)
        ON CONFLICT (hub_id, mac) DO UPDATE SET model = excluded.model, model_name = excluded.model_name,
            serial = coalesce(excluded.serial, d.serial), firmware = coalesce(excluded.firmware, d.firmware)
        WHERE (d.model, d.model_name, d.serial, d.firmware)
            IS DISTINCT FROM (excluded.model, excluded.model_name, coalesce(excluded.serial, d.serial),
                coalesce(excluded.firmware, d.firmware))
        """
    }

    /// The upsert of every inserted or updated reading: it applies only when no row and no deletion of the reading
    /// has the same or a newer version.
    func upsertQuery(hub: String) throws(SinkError) -> PostgresQuery {
        var bindings = PostgresBindings(capacity: 12 + typed.count)
        bindings.append(hub)
        func parameter(_ array: ColumnArray) -> String {
            bindings.append(array)
            return "$\(bindings.count)"
        }
        var sources: [String] = [
            parameter(ColumnArray(.int64(readingIDs))) + "::bigint[]",
            parameter(ColumnArray(.int64(versions))) + "::bigint[]",
            parameter(ColumnArray(.int64(measuredAt))) + "::bigint[]",
            parameter(ColumnArray(.text(kinds))) + "::text[]",
            parameter(ColumnArray(.text(deviceMACs))) + "::text[]",
            parameter(ColumnArray(.text(people))) + "::text[]",
            parameter(ColumnArray(.int16(userIndexes))) + "::smallint[]",
            parameter(ColumnArray(.int64(deviceTimes))) + "::bigint[]",
            parameter(ColumnArray(.text(flags))) + "::text[]",
            parameter(ColumnArray(.text(unavailable))) + "::text[]",
        ]
        var aliases = [
            "reading_id", "version", "measured_at", "kind", "device_mac", "person", "user_index", "device_time",
            "flags", "unavailable",
        ]
        var selected = [
            "u.reading_id", "u.version", "to_timestamp(u.measured_at)", "u.kind", "u.device_mac", "u.person",
            "u.user_index", "to_timestamp(u.device_time)", "u.flags::text[]", "u.unavailable::jsonb",
        ]
        for (index, column) in SinkSchema.typedColumns.enumerated() {
            let (array, cast) = try Self.array(typed[index], column)
            sources.append(parameter(array) + cast)
            aliases.append(column.name)
            switch column.valueType {
            case .sports, .sportTotals, .sleepSegments: selected.append("u.\(column.name)::jsonb")
            case .intervals: selected.append("u.\(column.name)::double precision[]")
            case .samples: selected.append("u.\(column.name)::smallint[]")
            case .number, .integer, .flag: selected.append("u.\(column.name)")
            }
        }
        let columns = aliases.joined(separator: ", ")
        let updates = aliases.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        let sql = """
            INSERT INTO vitalbridge.readings AS r (hub_id, \(columns))
            SELECT $1::uuid, \(selected.joined(separator: ", "))
            FROM unnest(\(sources.joined(separator: ", "))) AS u(\(columns))
            WHERE NOT EXISTS (
                SELECT 1 FROM vitalbridge.deletions d
                WHERE d.hub_id = $1::uuid AND d.reading_id = u.reading_id AND d.version >= u.version)
            ON CONFLICT (hub_id, reading_id) DO UPDATE SET \(updates)
            WHERE r.version < excluded.version
            """
        return PostgresQuery(unsafeSQL: sql, binds: bindings)
    }

    /// The deletions: each removes its reading's row when older, and leaves a tombstone with the newest version
    /// (unless a newer version of the reading is live).
    func deletionQuery(hub: String) -> PostgresQuery {
        """
        WITH d AS (
            SELECT * FROM unnest(
                \(ColumnArray(.int64(deletedIDs)))::bigint[], \(ColumnArray(.int64(deletedVersions)))::bigint[],
                \(ColumnArray(.text(reasons)))::text[]) AS d(reading_id, version, reason)
        ), gone AS (
            DELETE FROM vitalbridge.readings r USING d
            WHERE r.hub_id = \(hub)::uuid AND r.reading_id = d.reading_id AND r.version < d.version
        )
        INSERT INTO vitalbridge.deletions AS t (hub_id, reading_id, version, reason)
        SELECT \(hub)::uuid, d.reading_id, d.version, d.reason FROM d
        WHERE NOT EXISTS (
            SELECT 1 FROM vitalbridge.readings r
            WHERE r.hub_id = \(hub)::uuid AND r.reading_id = d.reading_id AND r.version >= d.version)
        ON CONFLICT (hub_id, reading_id) DO UPDATE SET version = excluded.version, reason = excluded.reason,
            deleted_at = excluded.deleted_at
        WHERE t.version < excluded.version
        """
    }

    /// A typed column's values as an array parameter, and the cast that reads it.
    private static func array(_ values: [FieldValue?], _ column: SinkSchema.TypedColumn) throws(SinkError)
        -> (ColumnArray, String)
    {
        switch column.valueType {
        case .number:
            var numbers: [Double?] = []
            numbers.reserveCapacity(values.count)
            for value in values {
                switch value {
                case .number(let number): numbers.append(number)
                case .integer(let integer): numbers.append(Double(integer))
                default: numbers.append(nil)
                }
            }
            return (ColumnArray(.double(numbers)), "::double precision[]")
        case .integer:
            var integers: [Int32?] = []
            integers.reserveCapacity(values.count)
            for value in values {
                guard case .integer(let integer) = value else {
                    integers.append(nil)
                    continue
                }
                guard let fitting = Int32(exactly: integer) else {
                    throw SinkError(.unwritableReading, "a value of \(column.name) does not fit an integer column")
                }
                integers.append(fitting)
            }
            return (ColumnArray(.int32(integers)), "::integer[]")
        case .flag:
            return (
                ColumnArray(
                    .bool(
                        values.map {
                            if case .flag(let flag) = $0 { flag } else { nil }
                        })), "::boolean[]"
            )
        case .sports:
            return (
                ColumnArray(
                    .text(
                        values.map {
                            guard case .sports(let sports) = $0 else { return nil }
                            let objects = sports.map { sport in
                                let more = [
                                    ("steps", sport.steps), ("distance", sport.distance), ("count", sport.count),
                                    ("activity", sport.activity), ("detail_distance", sport.detailDistance),
                                ]
                                .compactMap { name, value in value.map { ",\"\(name)\":\($0)" } }.joined()
                                return "{\"type\":\(sport.type),\"start\":\(sport.start),\"end\":\(sport.end),"
                                    + "\"calories\":\(sport.calories)\(more)}"
                            }
                            return "[" + objects.joined(separator: ",") + "]"
                        })), "::text[]"
            )
        case .sportTotals:
            return (
                ColumnArray(
                    .text(
                        values.map {
                            guard case .sportTotals(let totals) = $0 else { return nil }
                            let objects = totals.map { total in
                                "{\"type\":\(total.type),\"steps\":\(total.steps),\"calories\":\(total.calories),"
                                    + "\"distance\":\(total.distance)\(total.count.map { ",\"count\":\($0)" } ?? "")}"
                            }
                            return "[" + objects.joined(separator: ",") + "]"
                        })), "::text[]"
            )
        case .sleepSegments:
            return (
                ColumnArray(
                    .text(
                        values.map {
                            guard case .sleepSegments(let segments) = $0 else { return nil }
                            let objects = segments.map {
                                "{\"type\":\($0.type),\"start\":\($0.start),\"end\":\($0.end)}"
                            }
                            return "[" + objects.joined(separator: ",") + "]"
                        })), "::text[]"
            )
        case .intervals:
            return (
                ColumnArray(
                    .text(
                        values.map {
                            guard case .intervals(let intervals) = $0 else { return nil }
                            return "{" + intervals.map { "\($0)" }.joined(separator: ",") + "}"
                        })), "::text[]"
            )
        case .samples:
            return (
                ColumnArray(
                    .text(
                        values.map {
                            guard case .samples(let samples) = $0 else { return nil }
                            return "{" + samples.map(String.init).joined(separator: ",") + "}"
                        })), "::text[]"
            )
        }
    }
}
