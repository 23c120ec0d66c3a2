import GRDB
import Testing
import VitalCore
import VitalTestSupport

@testable import VitalStore

/// Migration 6 reads 0.14.0's payloads with its own frozen copy of the 0.14.0 kinds and fields
/// (`TypedColumnsMigration`); the application's kinds and fields, which read them when the migration was written
/// (`LegacyPayload`), are its oracle: the same payloads convert, to the same columns.
@Suite struct TypedColumnsMigrationTests {
    /// The columns the migration's table has: a field added to a kind after it has no value in a 0.14.0 row.
    static let migrationColumns: Set<String> = [
        "sys", "dia", "hr", "arr", "mgdl", "kg", "fat", "musclepct", "muscle", "ffm", "slm", "water", "bmr", "imp",
        "spo2", "pi", "c", "steps", "cal", "sleep", "eff", "swim", "swimcal", "dist", "deep", "light", "awake",
        "hrmin", "hravg", "hrmax", "hrn", "sports", "rr",
    ]

    /// What the application makes of `payload`: the columns of its reading, as the migration wrote them before it
    /// was frozen; `nil` when it reads no reading.
    static func oracle(kind: String, payload: String) -> [String: DatabaseValue]? {
        guard
            let reading = LegacyPayload.decode(kind: kind, measuredAt: Timestamp(secondsSince1970: 0), payload: payload)
        else { return nil }
        var columns: [String: DatabaseValue] = [:]
        for (field, value) in zip(reading.kind.storedFields, ReadingColumns.values(of: reading))
        where migrationColumns.contains(field.name!) {
            if let value { columns[field.name!] = value.databaseValue }
        }
        return columns
    }

    /// Columns compared by their values' text: a NaN the application kept is the frozen migration's NaN too.
    static func text(_ columns: [String: DatabaseValue]?) -> [String: String]? {
        columns?.mapValues { "\($0.storage)" }
    }

    static func frozen(kind: String, payload: String) -> [String: DatabaseValue]? {
        TypedColumnsMigration.columns(kind: kind, payload: payload).map {
            Dictionary($0.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        }
    }

    @Test("the frozen layouts are the 0.14.0 kinds, each field with a column of the migration's table")
    func layouts() {
        // the kinds 0.14.0 wrote, as it named them: a kind added since has no layout of migration 6
        let kinds = [
            "blood_pressure", "glucose", "weight", "oximetry", "temperature", "activity", "band_day", "heart_rate",
        ]
        #expect(Set(TypedColumnsMigration.layouts.keys) == Set(kinds))
        for (_, fields) in TypedColumnsMigration.layouts {
            #expect(fields.allSatisfy { Self.migrationColumns.contains($0.name) })
        }
    }

    @Test(
        "payloads the rules single out convert, or stay, as the application reads them",
        arguments: [
            ("blood_pressure", "sys=120.0;dia=80.0;hr=70;arr=0"), ("blood_pressure", "sys=120;dia=80"),
            ("blood_pressure", "dia=80;sys=120"), ("blood_pressure", "sys=120;dia=80;arr=2"),
            ("blood_pressure", "sys=120;sys=121;dia=80"), ("blood_pressure", "sys=120"),
            ("blood_pressure", "sys=120;dia=80;hr=7.5"), ("blood_pressure", "sys=120;dia=80;x=1"),
            ("blood_pressure", "sys=120;;dia=80;"), ("blood_pressure", "sys=120;dia"), ("blood_pressure", ""),
            ("blood_pressure", "sys=abc;dia=80"), ("blood_pressure", "sys=nan;dia=80"), ("glucose", "mgdl=98.6"),
            ("glucose", "mgdl="), ("weight", "kg=70.5"), ("weight", "kg=70.5;fat=20.1;water=30.2;bmr=1500"),
            ("weight", "kg=70.5;water=30.2"), ("weight", "kg=70.5;fat=20.1;bmr=1.5"),
            ("oximetry", "spo2=98;hr=60;pi=1.5"), ("oximetry", "spo2=98"), ("temperature", "c=36.6"),
            ("activity", "steps=100;cal=5;sleep=300;eff=90;swim=10;swimcal=50"), ("activity", "steps=100;cal=5"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;hrmin=50;hravg=60;hrmax=90;hrn=600"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;hrmin=50"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;sports=1/490/525/120,128/1080/1120/300"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;sports=2/725/735/80/0/0/220/10/"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;sports=2/725/735/80/////"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;sports=02/+725/735/80"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;sports="),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;sports=1/2/3"),
            ("band_day", "steps=1;cal=2;dist=3;deep=4;light=5;awake=6;sports=1/2/3/4/x////"),
            ("heart_rate", "hr=60;rr=812.5/790.0390625"), ("heart_rate", "hr=60;rr=812/-1"),
            ("heart_rate", "hr=60;rr=812/inf"), ("heart_rate", "hr=60;rr="), ("heart_rate", "hr=60"),
            ("lactate", "mmol=2.1"),
        ])
    func rule(kind: String, payload: String) {
        let frozen = Self.frozen(kind: kind, payload: payload)
        let oracle = Self.oracle(kind: kind, payload: payload)
        #expect(Self.text(frozen) == Self.text(oracle), "\(kind): \(payload)")
    }

    @Test("10,000 random payloads of every kind convert as the application reads them")
    func random() {
        var generator = SeededGenerator(seed: 0x0146)
        let texts = [
            "", "0", "1", "2", "-3", "7.5", "1e3", "nan", "inf", "x", "070", "+5", "812.5/790.25", "1/-2",
            "1/2/3/4", "1/2/3/4/5/6/7/8/9", "1/2/3/4/////", "1/2/3/4,5/6/7/8", "1/2/3", ",",
        ]
        for _ in 0..<10_000 {
            // the kinds and fields migration 6 knows, whatever kinds and fields were added since
            let kind = TypedColumnsMigration.layouts.keys.sorted().randomElement(using: &generator)!
            let names = TypedColumnsMigration.layouts[kind]!.map(\.name) + ["x"]
            let pairs = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                let name = names.randomElement(using: &generator)!
                return Int.random(in: 0..<20, using: &generator) == 0
                    ? name : "\(name)=\(texts.randomElement(using: &generator)!)"
            }
            let payload = pairs.joined(separator: ";")
            let frozen = Self.frozen(kind: kind, payload: payload)
            let oracle = Self.oracle(kind: kind, payload: payload)
            #expect(Self.text(frozen) == Self.text(oracle), "\(kind): \(payload)")
        }
    }
}
