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

    @Test(
        "every family has its traits: its own kind, which gives the family back, a name, and what it pushes and streams"
    )
    func traits() {
        let time = Timestamp(secondsSince1970: 1_764_000_000)
        let readings: [Reading] = [
            .bloodPressure(.init(systolic: 120, diastolic: 80, measuredAt: time)),
            .glucose(.init(mgPerDeciliter: 100, measuredAt: time)), .weight(.init(kilograms: 70, measuredAt: time)),
            .temperature(.init(celsius: 37, measuredAt: time)),
            .oximetry(.init(oxygenSaturation: 97, heartRate: 70, measuredAt: time)),
            .activity(.init(date: time.day, steps: 0, calories: 0, sleepMinutes: 0, sleepEfficiency: 0)),
            .band(
                .init(
                    date: time.day, steps: 0, calories: 0, distance: 0, sleep: .init(deep: 0, light: 0, awake: 0),
                    heartRate: nil, sports: [])),
            .heartRate(.init(heartRate: 60, rrIntervals: [], measuredAt: time)),
        ]
        // each kind is one family's, and each family takes one kind
        #expect(Set(readings.map(\.kind)) == Set(ReadingKind.allCases))
        #expect(Set(readings.map { DeviceFamily(of: $0) }) == Set(DeviceFamily.allCases))
        for reading in readings { #expect(DeviceFamily(of: reading).traits.kind == reading.kind) }
        for family in DeviceFamily.allCases {
            #expect(
                !family.traits.deviceName.isEmpty && family.traits.deviceName == family.traits.deviceName.lowercased())
        }
        #expect(DeviceFamily.allCases.filter(\.traits.pushesStoredRecords) == [.bloodPressure, .scale, .thermometer])
        #expect(
            DeviceFamily.allCases.filter(\.traits.streamsLiveSamples) == [
                .bloodPressure, .pulseOximeter, .heartRateSensor,
            ])
        #expect(DeviceFamily.allCases.filter(\.traits.carriesUserID) == [.bloodPressure, .scale])
        #expect(DeviceFamily.allCases.filter { $0.traits.progressCharacteristic != nil } == [.bloodPressure])
        #expect(
            DeviceFamily.allCases.filter { !$0.traits.errorCodes.isEmpty } == [
                .bloodPressure, .glucose, .scale, .pulseOximeter,
            ])
    }
}
