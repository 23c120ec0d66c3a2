import LayeredProtocol
import Testing
import VitalCore
import VitalDevices

/// The catalog states each model's facts itself (VitalDevices imports no protocol module); the layered protocol's
/// support matrix states them too, and the two must agree.
@Suite("Device catalog")
struct CatalogTests {
    @Test("a model measures live exactly when the protocol supports measure, stores records when it supports sync")
    func agreesWithTheProtocol() {
        for entry in DeviceCatalog.all {
            #expect(entry.measuresLive == entry.model.supports(.measure), "\(entry.model)")
            #expect(entry.storesRecords == entry.model.supports(.sync), "\(entry.model)")
        }
    }

    @Test("the PO3's codes are VitalCore's one table, the authentication failure as the SDK headers' 111")
    func po3Codes() {
        #expect(DeviceErrorCodes.pulseOximeter.count == PO3Error.allCases.count)
        #expect(DeviceErrorCodes.pulseOximeter[111] == "user authentication failed")
        #expect(DeviceErrorCodes.pulseOximeter[3] == "SpO2 or pulse rate out of the measurement range")
        #expect(Int(VendorGATT.authenticationFailedError) == PO3Error.userAuthentication.rawValue)
    }
}
