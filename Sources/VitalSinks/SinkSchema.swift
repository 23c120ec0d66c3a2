import VitalCore

/// The sink's schema in PostgreSQL: its versioned migrations and the typed columns of `vitalbridge.readings`.
///
/// Migrations are numbered and named; a shipped one is never edited, a change is a new one. The readings' typed
/// columns are not migrations: they are derived from `ReadingColumn`, and each ``PostgresSink/migrate()`` adds any
/// the table lacks (never drops or retypes one), so a new field of a reading kind is one entry in VitalCore.
public enum SinkSchema {
    /// One step of the schema.
    public struct Migration: Sendable {
        /// Its number: migrations run in increasing order, each once.
        public var version: Int
        /// What it does, for `vitalbridge.schema_migrations`.
        public var name: String
        /// Its statements, run in order in the migrating transaction.
        public var statements: [String]
    }

    /// A typed column of `vitalbridge.readings`: one per `ReadingColumn`, named with its unit.
    public struct TypedColumn: Sendable {
        /// The `ReadingColumn` it holds.
        public var column: ReadingColumn
        /// Its SQL name: `systolic_mmhg`, `heart_rate_bpm`, `weight_kg`, `rr_intervals_ms`.
        public var name: String
        /// Its SQL type: `double precision`, `integer`, `boolean`, `jsonb`, `double precision[]`, `smallint[]` (a
        /// pulse wave's samples).
        public var sqlType: String
        /// What its fields hold.
        public var valueType: ReadingField.ValueType
    }

    /// The advisory lock key under which migrations run (`pg_advisory_xact_lock`): any number every hub agrees on.
    public static let migrationLock: Int64 = 0x7669_7461_6C62_7267  // "vitalbrg"

    /// Every migration, oldest first. Never edit a shipped one: append.
    public static let migrations: [Migration] = [
        Migration(
            version: 1, name: "hubs, devices, people, readings and deletions",
            statements: [
                """
                CREATE TABLE vitalbridge.hubs (
                    hub_id uuid PRIMARY KEY,
                    first_seen timestamptz NOT NULL DEFAULT now(),
                    last_push timestamptz NOT NULL DEFAULT now(),
                    position bigint NOT NULL DEFAULT 0
                )
                """,
                """
                CREATE TABLE vitalbridge.devices (
                    hub_id uuid NOT NULL REFERENCES vitalbridge.hubs,
                    mac text NOT NULL,
                    model integer NOT NULL,
                    model_name text NOT NULL,
                    serial text,
                    firmware text,
                    PRIMARY KEY (hub_id, mac)
                )
                """,
                """
                CREATE TABLE vitalbridge.people (
                    hub_id uuid NOT NULL REFERENCES vitalbridge.hubs,
                    name text NOT NULL,
                    PRIMARY KEY (hub_id, name)
                )
                """,
                """
                CREATE TABLE vitalbridge.readings (
                    hub_id uuid NOT NULL REFERENCES vitalbridge.hubs,
                    reading_id bigint NOT NULL,
                    version bigint NOT NULL,
                    measured_at timestamptz NOT NULL,
                    kind text NOT NULL,
                    device_mac text NOT NULL,
                    person text,
                    user_index smallint,
                    device_time timestamptz,
                    flags text[] NOT NULL DEFAULT '{}',
                    unavailable jsonb,
                    PRIMARY KEY (hub_id, reading_id)
                )
                """,
                "CREATE INDEX readings_by_kind_person_time ON vitalbridge.readings (kind, person, measured_at DESC)",
                "CREATE INDEX readings_by_hub_time ON vitalbridge.readings (hub_id, measured_at)",
                """
                CREATE TABLE vitalbridge.deletions (
                    hub_id uuid NOT NULL REFERENCES vitalbridge.hubs,
                    reading_id bigint NOT NULL,
                    version bigint NOT NULL,
                    reason text,
                    deleted_at timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (hub_id, reading_id)
                )
                """,
            ]),
        Migration(
            version: 2, name: "the blood_pressure view for dashboards",
            statements: [
                """
                CREATE VIEW vitalbridge.blood_pressure AS
                SELECT measured_at AS time, hub_id AS hub, person, device_mac, systolic_mmhg AS systolic,
                    diastolic_mmhg AS diastolic, heart_rate_bpm AS pulse, arrhythmia, flags
                FROM vitalbridge.readings
                WHERE kind = 'blood_pressure'
                """
            ]),
    ]

    /// The first migration after which the typed columns are added (the one that creates the table): later ones
    /// may use them.
    static let typedColumnsAfter = 1

    /// The typed columns, in `ReadingColumn`'s order.
    public static let typedColumns: [TypedColumn] = ReadingColumn.allCases.compactMap { column in
        guard
            let field = ReadingKind.allCases.lazy.flatMap(\.fields).first(where: { $0.column == column })
        else { return nil }
        let sqlType =
            switch field.type {
            case .number: "double precision"
            case .integer: "integer"
            case .flag: "boolean"
            case .sports, .sportTotals, .sleepSegments: "jsonb"
            case .intervals: "double precision[]"
            case .samples: "smallint[]"
            }
        return TypedColumn(column: column, name: columnName(column), sqlType: sqlType, valueType: field.type)
    }

    /// The SQL name of `column`: its field and its unit, lower case (`systolic_mmhg`, `glucose_mg_dl`,
    /// `spo2_pct`, `temperature_c`); RR intervals are in milliseconds (`rr_intervals_ms`).
    public static func columnName(_ column: ReadingColumn) -> String {
        if column == .rrIntervals { return "rr_intervals_ms" }
        let suffix =
            switch column.unit {
            case "": ""
            case "%": "pct"
            case "°C": "c"
            case "mg/dL": "mg_dl"
            default: column.unit.lowercased()
            }
        return suffix.isEmpty ? column.field : column.field + "_" + suffix
    }

    /// The documented query: each person's latest blood pressure, per hub.
    public static let latestBloodPressureQuery = """
        SELECT DISTINCT ON (hub, person) hub, person, time, systolic, diastolic, pulse
        FROM vitalbridge.blood_pressure
        ORDER BY hub, person, time DESC
        """
}
