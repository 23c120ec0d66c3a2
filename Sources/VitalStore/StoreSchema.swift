import Foundation
internal import GRDB
import VitalCore

/// The store's schema: its migrations, named and never edited once shipped, each saying what its tables hold, and
/// the number of them an up-to-date store has applied.
enum StoreSchema {
    /// Runs the migrations a store lacks. The number of migrations applied is kept in `PRAGMA user_version` too,
    /// so that opening an up-to-date store costs one pragma rather than the migrator's queries.
    static func migrate(_ database: any DatabaseWriter) throws {
        let latest = migrator.migrations.count
        let version = try database.unsafeRead { db in try Int.fetchOne(db, sql: "PRAGMA user_version") } ?? 0
        guard version != latest else { return }
        guard version < latest else {
            throw StoreError(
                .schema, "it was written by a newer VitalBridge (schema \(version); this one knows \(latest))")
        }
        try migrator.migrate(database)
        try database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA user_version = \(latest)") }
    }

    /// The schema version this release writes (`PRAGMA user_version` of an up-to-date store): every write
    /// transaction checks it.
    static let version = migrator.migrations.count

    /// The schema's migrations; a shipped migration is never edited, only followed by new ones. Each is frozen: its
    /// SQL and the values it uses are its own, never the application's (whose kinds, fields and queries change
    /// after it), and `MigrationFixtureTests` runs each one from a fixture of the schema before it.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: devices, readings, deliveries") { db in
            try db.execute(
                sql: """
                    CREATE TABLE device (
                        mac TEXT PRIMARY KEY NOT NULL,
                        model INTEGER NOT NULL,
                        serial TEXT,
                        firmware TEXT,
                        profile TEXT,
                        added_at INTEGER NOT NULL
                    );
                    CREATE TABLE reading (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        device_mac TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        measured_at INTEGER NOT NULL,
                        payload TEXT NOT NULL,
                        UNIQUE (device_mac, kind, measured_at, payload)
                    );
                    CREATE INDEX reading_by_device_time ON reading (device_mac, measured_at);
                    CREATE TABLE delivery (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        caller TEXT NOT NULL,
                        device_mac TEXT,
                        action INTEGER NOT NULL,
                        status INTEGER NOT NULL,
                        delivered_at INTEGER NOT NULL,
                        remaining INTEGER NOT NULL
                    );
                    CREATE TABLE delivery_reading (
                        delivery_id INTEGER NOT NULL REFERENCES delivery(id),
                        reading_id INTEGER NOT NULL REFERENCES reading(id),
                        caller TEXT NOT NULL,
                        PRIMARY KEY (delivery_id, reading_id)
                    );
                    CREATE INDEX delivered_by_caller ON delivery_reading (caller, reading_id);
                    """)
        }
        migrator.registerMigration("v2: reservations, application id") { db in
            try db.execute(
                sql: """
                    CREATE TABLE reservation (
                        caller TEXT NOT NULL,
                        reading_id INTEGER NOT NULL REFERENCES reading(id),
                        owner TEXT NOT NULL,
                        expires_at REAL NOT NULL,
                        PRIMARY KEY (caller, reading_id)
                    );
                    CREATE INDEX reservation_by_owner ON reservation (owner);
                    PRAGMA application_id = 1447187015;  -- 0x56425247, "VBRG"
                    """)
        }
        migrator.registerMigration("v3: pending readings by caller") { db in
            // `pending` holds, for each caller that asked for a device (`pending_caller`), the device's readings not
            // yet delivered to it, in delivery order: a callback reads what it carries, not the history.
            try db.execute(
                sql: """
                    CREATE TABLE pending_caller (
                        device_mac TEXT NOT NULL,
                        caller TEXT NOT NULL,
                        PRIMARY KEY (device_mac, caller)
                    ) WITHOUT ROWID;
                    CREATE TABLE pending (
                        caller TEXT NOT NULL,
                        device_mac TEXT NOT NULL,
                        measured_at INTEGER NOT NULL,
                        reading_id INTEGER NOT NULL REFERENCES reading(id),
                        PRIMARY KEY (caller, device_mac, measured_at, reading_id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v4: items of a day, revised readings") { db in
            // `day_item` keeps what a smartband pushed, item by item, as it came; a day's summary is a reading made
            // from them and revised in place (`revision`) when a new item changes it. A delivery journals the
            // revision it carried, so a revised day is pending again for callers that had the older one.
            try db.execute(
                sql: """
                    ALTER TABLE reading ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE reservation ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE delivery_reading ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE day_item (
                        device_mac TEXT NOT NULL,
                        day INTEGER NOT NULL,
                        kind INTEGER NOT NULL,
                        key INTEGER NOT NULL,
                        bytes BLOB NOT NULL,
                        PRIMARY KEY (device_mac, day, kind, key)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v5: the hub's identity") { db in
            // A random UUID made once per store: exports name the hub by it (FHIR `meta.source`) and scope their
            // identifiers to it, so that two hubs never claim each other's patients or readings.
            try db.execute(
                sql: "CREATE TABLE hub (id TEXT NOT NULL); INSERT INTO hub (id) VALUES (?)",
                arguments: [UUID().uuidString.lowercased()])
        }
        migrator.registerMigration("v6: readings in typed columns") { db in
            // A reading's values move from 0.14.0's `name=value;` text into one typed column per stored field, as
            // `TypedColumnsMigration` (frozen: it defines the 0.14.0 fields itself) reads them; the text's uniqueness constraint goes with it (a re-sent reading is recognized by
            // its values). Every row is converted keeping its identifier and revision, so deliveries, reservations
            // and the pending queue still name it; a row whose text cannot be read keeps it in `unconverted` and
            // reads as it did (an error naming the row), never dropped.
            try db.execute(
                sql: """
                    CREATE TABLE new_reading (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        device_mac TEXT NOT NULL,
                        kind TEXT NOT NULL,
                        measured_at INTEGER NOT NULL,
                        revision INTEGER NOT NULL DEFAULT 0,
                        sys REAL, dia REAL, hr INTEGER, arr INTEGER,
                        mgdl REAL,
                        kg REAL, fat REAL, musclepct REAL, muscle REAL, ffm REAL, slm REAL, water REAL, bmr INTEGER,
                        imp REAL,
                        spo2 INTEGER, pi REAL,
                        c REAL,
                        steps INTEGER, cal INTEGER, sleep INTEGER, eff INTEGER, swim INTEGER, swimcal INTEGER,
                        dist INTEGER, deep INTEGER, light INTEGER, awake INTEGER,
                        hrmin INTEGER, hravg INTEGER, hrmax INTEGER, hrn INTEGER, sports TEXT,
                        rr TEXT,
                        unconverted TEXT
                    );
                    """)
            let rows = try Row.fetchCursor(
                db, sql: "SELECT id, device_mac, kind, measured_at, revision, payload FROM reading ORDER BY id")
            while let row = try rows.next() {
                let payload: String = row[5]
                var names = ["id", "device_mac", "kind", "measured_at", "revision"]
                var values: [DatabaseValue] = [row[0], row[1], row[2], row[3], row[4]]
                if let columns = TypedColumnsMigration.columns(kind: row[2], payload: payload) {
                    names += columns.map(\.name)
                    values += columns.map(\.value)
                } else {
                    names.append("unconverted")
                    values.append(payload.databaseValue)
                }
                // a few statements (one per kind and set of values), each prepared once
                let marks = Array(repeating: "?", count: names.count).joined(separator: ", ")
                try db.cachedStatement(
                    sql: "INSERT INTO new_reading (\(names.joined(separator: ", "))) VALUES (\(marks))"
                ).execute(arguments: StatementArguments(values))
            }
            try db.execute(
                sql: """
                    DELETE FROM sqlite_sequence WHERE name = 'new_reading';
                    INSERT INTO sqlite_sequence (name, seq) SELECT 'new_reading', seq FROM sqlite_sequence
                    WHERE name = 'reading';
                    DROP TABLE reading;
                    ALTER TABLE new_reading RENAME TO reading;
                    CREATE INDEX reading_by_device_time ON reading (device_mac, measured_at);
                    """)
        }
        migrator.registerMigration("v7: what devices say about readings, and whose they are") { db in
            // A reading's annotations (ReadingAnnotations), NULL for every reading stored before: its statuses (a
            // whole number of ReadingStatus bits), the fields the device sent a special value for
            // (`sys=NaN,hr=+INF`), the device's user index, and the time the device's clock gave it when its
            // `measured_at` is that time corrected.
            // The home's people (`person`), which person each user index of a multi-user device is (`assignment`),
            // and the person whose readings a caller receives (`caller_person`). A reading with a user index that
            // no assignment names is in quarantine: stored, never delivered nor exported.
            try db.execute(
                sql: """
                    ALTER TABLE reading ADD COLUMN status INTEGER;
                    ALTER TABLE reading ADD COLUMN unavailable TEXT;
                    ALTER TABLE reading ADD COLUMN user_index INTEGER;
                    ALTER TABLE reading ADD COLUMN device_time INTEGER;
                    CREATE INDEX reading_by_user ON reading (device_mac, user_index) WHERE user_index IS NOT NULL;
                    CREATE TABLE person (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        name TEXT NOT NULL UNIQUE
                    );
                    CREATE TABLE assignment (
                        device_mac TEXT NOT NULL,
                        user_index INTEGER NOT NULL,
                        person_id INTEGER NOT NULL REFERENCES person(id),
                        PRIMARY KEY (device_mac, user_index)
                    ) WITHOUT ROWID;
                    CREATE TABLE caller_person (
                        caller TEXT PRIMARY KEY,
                        person_id INTEGER NOT NULL REFERENCES person(id)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v8: the change feed, deletions and sinks") { db in
            // `feed` keeps the latest change of each reading that may be exported (ReadingChange): `seq` grows in
            // commit order and is never reused (AUTOINCREMENT), so it is the reading's version and a consumer's
            // place; a reading's next change replaces its row under a larger `seq`. `op` is 0 insert, 1 update,
            // 2 delete, with the deletion's `reason`. A reading in quarantine has none until it is released.
            // Every reading stored before gets one insert, in the order it was stored.
            // `reading.deleted_at`: when the user deleted it; a deleted reading stays, so that a device sending it
            // again does not bring it back, but is never delivered nor exported.
            // `sink`: each destination the feed is pushed to, its address without secrets, the password file it
            // reads (never the password), and the feed's sequence it has committed (`position`).
            try db.execute(
                sql: """
                    ALTER TABLE reading ADD COLUMN deleted_at INTEGER;
                    CREATE TABLE feed (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        reading_id INTEGER NOT NULL UNIQUE REFERENCES reading(id),
                        op INTEGER NOT NULL,
                        reason TEXT
                    );
                    INSERT INTO feed (reading_id, op) SELECT id, 0 FROM reading
                        WHERE NOT (reading.user_index IS NOT NULL AND NOT EXISTS (SELECT 1 FROM assignment
                            WHERE assignment.device_mac = reading.device_mac
                            AND assignment.user_index = reading.user_index))
                        ORDER BY id;
                    CREATE TABLE sink (
                        name TEXT PRIMARY KEY NOT NULL,
                        address TEXT NOT NULL,
                        password_file TEXT,
                        added_at INTEGER NOT NULL,
                        position INTEGER NOT NULL DEFAULT 0,
                        last_success_at INTEGER,
                        last_error TEXT,
                        last_error_at INTEGER
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v9: a band day's sport totals and sleep segments") { db in
            // A band day keeps the totals of each sport (`sporttotals`) and the night's segments (`sleepsegs`), as
            // text (ReadingColumns). Columns, not derived from `day_item` when read: a reading is read, exported
            // and fed without its device's items, and reading them would make every read cost a day's items. A day
            // stored before has NULL in both (empty lists) until its band sends it again, which revises the reading
            // in place from all its stored items, marks included.
            try db.execute(
                sql: """
                    ALTER TABLE reading ADD COLUMN sporttotals TEXT;
                    ALTER TABLE reading ADD COLUMN sleepsegs TEXT;
                    """)
        }
        migrator.registerMigration("v10: a pulse oximeter's pulse wave") { db in
            // `reading.wave`: the pulse wave a PO3 sent with a history record, its samples (0–100) comma-separated
            // (`12,40,77`); NULL for every reading stored before and for a record the device sent without one.
            try db.execute(sql: "ALTER TABLE reading ADD COLUMN wave TEXT")
        }
        migrator.registerMigration("v11: people's data and enrolments on devices, with spans") { db in
            // `person`: what a multi-user device needs to know (`born` as yyyy-MM-dd, `height_cm`, `sex` as the
            // User Data Service's gender in words), and `profile_version`, which grows each time they change.
            // `assignment` gets a span and may be an enrolment: it makes a device's user index a person's for the
            // readings measured at or after `since` (NULL: from the first) and before `until` (NULL: still open), so
            // an enrolment that ends keeps its readings and a later user of the index is not filed under them. At
            // most one assignment of an index is open. An enrolment (User Data Service) has the user's consent code
            // (`consent_code`, 0–9999, secret), the Database Change Increment the hub last wrote or read
            // (`change_increment`) and the person's `profile_version` it wrote. Assignments before are open and
            // span every reading, as they did.
            try db.execute(
                sql: """
                    ALTER TABLE person ADD COLUMN born TEXT;
                    ALTER TABLE person ADD COLUMN height_cm INTEGER;
                    ALTER TABLE person ADD COLUMN sex TEXT;
                    ALTER TABLE person ADD COLUMN profile_version INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE new_assignment (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        device_mac TEXT NOT NULL,
                        user_index INTEGER NOT NULL,
                        person_id INTEGER NOT NULL REFERENCES person(id),
                        since INTEGER,
                        until INTEGER,
                        consent_code INTEGER,
                        change_increment INTEGER,
                        profile_version INTEGER
                    );
                    INSERT INTO new_assignment (device_mac, user_index, person_id)
                        SELECT device_mac, user_index, person_id FROM assignment ORDER BY device_mac, user_index;
                    DROP TABLE assignment;
                    ALTER TABLE new_assignment RENAME TO assignment;
                    CREATE INDEX assignment_by_user ON assignment (device_mac, user_index);
                    CREATE UNIQUE INDEX assignment_open ON assignment (device_mac, user_index) WHERE until IS NULL;
                    """)
        }
        migrator.registerMigration("v12: each owner's latest reading of a kind, found by an index") { db in
            // The MQTT sink shows Home Assistant each person's (and the home's) latest reading of each kind: a
            // device's live readings of one kind and user, newest first, without walking past its other users' and
            // kinds' readings.
            try db.execute(
                sql: """
                    CREATE INDEX reading_latest ON reading (device_mac, kind, user_index, measured_at)
                        WHERE deleted_at IS NULL
                    """)
        }
        return migrator
    }
}
