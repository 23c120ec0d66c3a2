import HealthGATT
import Testing
import VitalCore
import VitalDevices

private let g = GATTCharacteristics.self

/// A clock the session read off is set by the Current Time, or, where that is read-only, by the vendor set-time
/// command of a device that speaks the vendor control service; never one that was not read or is right.
@Suite("Setting a device's clock")
struct ClockSetTests {
    static let hub = time(12, 0).host
    /// The Current Time written to set the clock to ``hub``.
    static let currentTime = CurrentTime(hub, adjustReason: .manualTimeUpdate).encoded()
    /// The vendor set-time command for ``hub``.
    static let setTime = VendorCommand.setTime(DateTime(hub)).encoded
    static let readOnly = DeviceError(.unsupported, message: "NotPermitted: the Current Time is read-only")

    /// The driver of `model`, whose Current Time shows the hub's time plus `offset` (no Current Time Service when
    /// `nil`), on a link running `script`, its clock read.
    static func driver(_ model: DeviceModel, offset: Int64?, _ script: [ScriptStep]) async throws -> (
        any DeviceDriver, ScriptedConnection
    ) {
        let shown = Timestamp(secondsSince1970: hub.secondsSince1970 + (offset ?? 0))
        let connection = ScriptedConnection(
            script,
            offering: (offset == nil ? [] : [g.currentTime]) + [g.vendorControlPoint, g.vendorStatus],
            reads: [g.currentTime: CurrentTime(shown).encoded()])
        let driver = makeDriver(for: DeviceCatalog.entry(for: model), connection: connection) { hub }
        try await driver.readClock { hub }
        return (driver, connection)
    }

    @Test(
        "a vendor model's read-only Current Time: the clock is set by the vendor set-time command",
        arguments: [DeviceModel.bp5, .bg5, .hs4])
    func vendorCommand(model: DeviceModel) async throws {
        let (driver, connection) = try await Self.driver(
            model, offset: 7_200,
            [
                .failWrite(g.currentTime, Self.currentTime, Self.readOnly), .write(g.vendorControlPoint, Self.setTime),
                .notify(
                    g.vendorStatus,
                    VendorEvent.commandResult(opCode: VendorOpCode.setTime.rawValue, success: true).encoded),
            ])
        #expect(try await driver.setClock(hubTime: Self.hub) == 7_200)
        #expect(connection.unplayed == 0)
    }

    @Test("a writable Current Time is written, and no vendor command is sent")
    func writable() async throws {
        let (driver, connection) = try await Self.driver(
            .bp5, offset: -3_600, [.write(g.currentTime, Self.currentTime)])
        #expect(try await driver.setClock(hubTime: Self.hub) == -3_600)
        #expect(connection.writes == [.write(g.currentTime, Self.currentTime)])
    }

    @Test("a vendor refusal leaves the clock as it is, and is no error: nil, as for a read-only Current Time")
    func refused() async throws {
        let (driver, connection) = try await Self.driver(
            .bg5, offset: 7_200,
            [
                .failWrite(g.currentTime, Self.currentTime, Self.readOnly), .write(g.vendorControlPoint, Self.setTime),
                .notify(
                    g.vendorStatus,
                    VendorEvent.commandResult(opCode: VendorOpCode.setTime.rawValue, success: false).encoded),
            ])
        #expect(try await driver.setClock(hubTime: Self.hub) == nil)
        #expect(connection.unplayed == 0)
    }

    @Test("a device error while the command runs is thrown: the caller logs why the clock was not set")
    func deviceError() async throws {
        let (driver, _) = try await Self.driver(
            .bp5, offset: 7_200,
            [
                .failWrite(g.currentTime, Self.currentTime, Self.readOnly), .write(g.vendorControlPoint, Self.setTime),
                .notify(g.vendorStatus, VendorEvent.deviceError(code: 4).encoded),
            ])
        await #expect(throws: DeviceError(.deviceReported, deviceCode: 4, message: "the device reported error 4")) {
            _ = try await driver.setClock(hubTime: Self.hub)
        }
    }

    @Test("a generic SIG device's read-only Current Time keeps its clock: it has no vendor command")
    func genericReadOnly() async throws {
        let (driver, connection) = try await Self.driver(
            .bloodPressureMonitor, offset: 7_200, [.failWrite(g.currentTime, Self.currentTime, Self.readOnly)])
        #expect(try await driver.setClock(hubTime: Self.hub) == nil)
        #expect(connection.writes == [.write(g.currentTime, Self.currentTime)])
    }

    @Test(
        "a clock within 2 s, or one that was not read, is never set: nothing is written, no command sent",
        arguments: [2, -2, 0, nil] as [Int64?])
    func notSet(offset: Int64?) async throws {
        let (driver, connection) = try await Self.driver(.bp5, offset: offset, [])
        #expect(try await driver.setClock(hubTime: Self.hub) == nil)
        #expect(connection.writes.isEmpty)
    }
}
