import LayeredClient
import LayeredProtocol
import Testing
import VitalCore

@Suite("LayeredIntent from the fields a person types")
struct TypedIntentTests {
    @Test("each field reads as the protocol's value: a model by number or name, the profile with its unit")
    func fieldsRead() throws {
        let measure = try LayeredIntent(cmd: 0, model: "bp5", mac: "004D3208D2F4", unit: 2)
        #expect(measure == LayeredIntent(.measure, .bp5, mac: MACAddress("004D3208D2F4"), unit: .mmHg))
        #expect(try LayeredIntent(cmd: 2, model: "100").model == .bp5)
        let activity = try LayeredIntent(cmd: 2, model: "AM4", unit: 10, profile: "1111,30,1,180,80,1")
        #expect(
            activity.profile
                == ActivityProfile(
                    userID: 1111, age: 30, sex: .male, height: 180, weight: 80, swim: .on, distanceUnit: .kilometre))
        let add = try LayeredIntent(cmd: 1, model: "BG5", addType: 1, popFlag: 1)
        #expect(add.addType == .qrCode && add.popFlag == .prompt)
        let glucose = try LayeredIntent(cmd: 0, model: "BG5", stripCode: "02323C64323C1C2E4E")
        #expect(glucose.stripCode == StripCode(type: .qrCode, code: "02323C64323C1C2E4E"))
        #expect(try LayeredIntent(cmd: 0, model: "BG5", stripCode: "X", codeType: 1).stripCode?.type.rawValue == 1)
        #expect(
            try LayeredIntent(cmd: 2, model: "BP5", since: "2026-01-02 03:04:05").since?.description
                == "2026-01-02 03:04:05")
    }

    @Test(
        "a field that does not read is refused, naming it and the value",
        arguments: [
            ({ @Sendable in try LayeredIntent(cmd: 9, model: "BP5") }, "cmd 9 is not one of the protocol's"),
            (
                { @Sendable in try LayeredIntent(cmd: 0, model: "BP9") },
                "model BP9 is neither a devicemodel number nor a model name"
            ),
            (
                { @Sendable in try LayeredIntent(cmd: 0, model: "999") },
                "model 999 is neither a devicemodel number nor a model name"
            ),
            (
                { @Sendable in try LayeredIntent(cmd: 0, model: "BP5", mac: "004D32") },
                "mac 004D32 is not 12 hexadecimal digits"
            ),
            (
                { @Sendable in try LayeredIntent(cmd: 1, model: "BP5", addType: 7) },
                "addtype 7 is not one of the protocol's"
            ),
            (
                { @Sendable in try LayeredIntent(cmd: 1, model: "BP5", popFlag: 2) },
                "popflag 2 is not one of the protocol's"
            ),
            (
                { @Sendable in try LayeredIntent(cmd: 0, model: "BP5", unit: 99) },
                "unit 99 is not one of the protocol's"
            ),
            (
                { try LayeredIntent(cmd: 0, model: "BG5", stripCode: "X", codeType: 5) },
                "codetype 5 is not one of the protocol's"
            ),
            (
                { try LayeredIntent(cmd: 2, model: "BP5", since: "2026-01-02") },
                "since 2026-01-02 is not yyyy-MM-dd HH:mm:ss"
            ),
        ] as [(@Sendable () throws -> LayeredIntent, String)])
    func refused(make: @Sendable () throws -> LayeredIntent, message: String) {
        #expect(throws: IntentFieldError.self) { try make() }
        do {
            _ = try make()
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test(
        "a profile is six numbers in their ranges, with a distance unit",
        arguments: [
            ("1111,30,1,180,80", 10), ("1111,30,1,180,80,1,0", 10), ("1111,300,1,180,80,1", 10),
            ("1111,30,7,180,80,1", 10), ("1111,30,1,180,80,x", 10), ("1111,30,1,180,80,1", nil), ("", 10),
            ("99999999999,30,1,180,80,1", 10),
        ] as [(String, Int?)])
    func badProfile(profile: String, unit: Int?) {
        #expect(
            throws: IntentFieldError(
                field: "profile",
                reason: "\(profile) is not USERID,AGE,SEX,HEIGHT,WEIGHT,SWIM, numbers, with a distance unit (9 or 10)")
        ) {
            try LayeredIntent(cmd: 2, model: "AM4", unit: unit, profile: profile)
        }
    }
}
