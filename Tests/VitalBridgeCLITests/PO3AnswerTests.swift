import Foundation
import LayeredProtocol
import Testing
import VitalCore
import VitalStore
import VitalTestSupport

@Suite("the PO3 SDK's answers through the hub")
struct PO3AnswerTests {
    @Test("PO3DataZero is never sent: an empty history syncs with success and result=[]")
    func emptyHistory() throws {
        let home = try TestHome.with(.po3)
        _ = try home.callback(request(.sync, .po3))
        let output = try home.open(request(.sync, .po3))
        #expect(output.status == 0, "\(output.stderr)")
        #expect(output.stdout.contains("&status=0&") && output.stdout.contains("&result=%5B%5D"), "\(output.stdout)")
        let callback = try LayeredCallback(parsing: String(output.stdout.dropLast()))
        #expect(callback.status == .success(.sync) && callback.reason == nil)
    }

    @Test("a PO3 that refuses the user answers ERROR-300-111, and device live names the authentication")
    func authenticationFailure() throws {
        let home = try TestHome(fleet: fleet(.po3) { $0.authenticationResult = 5 })
        let callback = try home.callback(request(.add, .po3))
        #expect(callback.reason == .device(.po3, code: 111))
        _ = try home.store()
            .saveDevice(StoredDevice(mac: MACAddress(macOf(.po3))!, model: .po3, addedAt: bandStart))
        let live = try home.device(["live"], .po3)
        #expect(live.status == 1 && live.stderr.contains("user authentication failed"), "\(live.stderr)")
    }
}
