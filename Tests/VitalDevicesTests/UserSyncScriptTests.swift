import HealthGATT
import Testing
import VitalCore
import VitalDevices

private let g = GATTCharacteristics.self

/// A person's sync on a scale with a User Data Service, against a script: what the device sends while the hub waits
/// for the User Control Point's answer is a reading like any other.
@Suite("A user's sync against a scripted scale with users")
struct UserSyncScriptTests {
    static let table = [g.weightMeasurement, g.userControlPoint, g.databaseChangeIncrement, g.userIndex]
    /// Ann, user 1 (code 1111), whose data the hub last wrote with increment 7.
    static let ann = DeviceUser(
        name: "Ann", userIndex: 1, consentCode: 1111, changeIncrement: 7, profile: PersonProfile(),
        profileChanged: false)
    /// Consent as user 1 with code 1111 (0x0457).
    static let consent: [UInt8] = [0x02, 0x01, 0x57, 0x04]
    static let today = CalendarDate(year: 2026, month: 11, day: 20)!

    static func weight(_ raw: UInt16, at minute: UInt8, user: UInt8?) -> [UInt8] {
        WeightMeasurement(system: .si, weight: MassValue(raw: raw), timeStamp: time(7, minute).device, userID: user)
            .encoded()
    }

    func driver(_ script: [ScriptStep]) -> (any DeviceDriver, ScriptedConnection) {
        let connection = ScriptedConnection(
            script, offering: Self.table, reads: [g.databaseChangeIncrement: DatabaseChangeIncrement(7).encoded()])
        let driver = makeDriver(for: DeviceCatalog.entry(for: .weightScale), connection: connection) {
            time(12, 0).host
        }
        return (driver, connection)
    }

    @Test("a weight indicated before the consent's answer is stored and confirmed, then the answer is taken")
    func measuredDuringConsent() async throws {
        let (driver, connection) = driver([
            .write(g.userControlPoint, Self.consent),
            // someone steps on the scale as the hub consents: the device holds its answer until this is confirmed
            .indicate(g.weightMeasurement, Self.weight(14_000, at: 1, user: 0xFF)),
            .indicate(g.userControlPoint, [0x20, 0x02, 0x01]),
            .indicate(g.weightMeasurement, Self.weight(14_100, at: 2, user: 1)),
            .quiet,
        ])
        let sink = RecordingSink()
        let synced = try await driver.sync(user: Self.ann, today: Self.today, into: sink) { _ in }
        #expect(synced.stored == 2)
        #expect(synced.reconciled.changeIncrement == 7 && synced.reconciled.adopted == nil)
        #expect(
            sink.readings.map { reading -> Double? in
                guard case .weight(let weight) = reading else { return nil }
                return weight.kilograms
            } == [70, 70.5])
        #expect(sink.readings.map(\.annotations.userIndex) == [255, 1])
        #expect(connection.unplayed == 0)
        #expect(connection.confirmations == [1, 2, 3])
        // the measurement is subscribed to before the Consent, so that what comes before its answer is the sync's
        #expect(
            Array(connection.operations.prefix(3)) == [
                .subscribe(g.userControlPoint), .subscribe(g.weightMeasurement),
                .write(g.userControlPoint, Self.consent),
            ])
    }

    @Test("a weight indicated before Delete User Data's answer is stored and confirmed when a person is forgotten")
    func measuredDuringDelete() async throws {
        let (driver, connection) = driver([
            .write(g.userControlPoint, Self.consent),
            .indicate(g.userControlPoint, [0x20, 0x02, 0x01]),
            .indicate(g.weightMeasurement, Self.weight(14_100, at: 2, user: 1)),
            .quiet,
            .write(g.userControlPoint, [0x03]),
            .indicate(g.weightMeasurement, Self.weight(14_000, at: 3, user: 0xFF)),
            .indicate(g.userControlPoint, [0x20, 0x03, 0x01]),
        ])
        let sink = RecordingSink()
        #expect(try await driver.forget(user: Self.ann, today: Self.today, into: sink) == 2)
        #expect(sink.readings.map(\.annotations.userIndex) == [1, 255])
        #expect(connection.unplayed == 0)
        #expect(connection.confirmations == [1, 2, 3, 4])
    }

    @Test("a request the hub makes before subscribing to measurements fails on one, leaving it unconfirmed")
    func measuredDuringRegister() async throws {
        let connection = ScriptedConnection(
            [
                .write(g.userControlPoint, [0x01, 0x57, 0x04]),
                .indicate(g.weightMeasurement, Self.weight(14_000, at: 3, user: 0xFF)),
            ], offering: Self.table)
        let users = try #require(try await UserDataClient(connection))
        let error = await #expect(throws: DeviceError.self) { try await users.register(consentCode: 1111) }
        #expect(error?.code == .protocolViolation)
        #expect(connection.confirmations.isEmpty)
    }

    @Test("a device without a User Data Service keeps no users: neither sync nor forget asks it anything")
    func noUsers() async throws {
        let connection = ScriptedConnection([], offering: [g.weightMeasurement])
        let driver = makeDriver(for: DeviceCatalog.entry(for: .weightScale), connection: connection) {
            time(12, 0).host
        }
        for attempt in 0..<2 {
            let error = await #expect(throws: DeviceError.self) {
                if attempt == 0 {
                    _ = try await driver.sync(user: Self.ann, today: Self.today, into: RecordingSink()) { _ in }
                } else {
                    _ = try await driver.forget(user: Self.ann, today: Self.today, into: RecordingSink())
                }
            }
            #expect(error?.code == .unsupported)
        }
        #expect(connection.operations.isEmpty)
    }
}
