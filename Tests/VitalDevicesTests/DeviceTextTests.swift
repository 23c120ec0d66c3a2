import Foundation
import HealthGATT
import Testing
import VitalCore
import VitalDevices

/// What the commands print of a device's own values, made by VitalDevices: its information line, its live samples as
/// JSON, the health profiles it advertises, and what the hub keeps of a characteristic beyond its values.
@Suite("VitalDevices: a device's values as the commands print them")
struct DeviceTextTests {
    @Test(
        "a sync's progress bar: filled by the share stored, a new line once all are, no percent while the total is unknown",
        arguments: [
            (
                SyncProgress(stored: 512, expected: 1024),
                "\rsync [" + String(repeating: "#", count: 15) + String(repeating: " ", count: 15) + "] 50% (512/1024)"
            ),
            (SyncProgress(stored: 3, expected: 3), "\rsync [" + String(repeating: "#", count: 30) + "] 100% (3/3)\n"),
            (SyncProgress(stored: 0, expected: 0), "\rsync [" + String(repeating: " ", count: 30) + "] 0% (0/0)\n"),
            (SyncProgress(stored: 12, expected: nil), "\rsync [" + String(repeating: " ", count: 30) + "] (12)"),
            (SyncProgress(stored: 9, expected: 4), "\rsync [" + String(repeating: "#", count: 30) + "] 100% (9/4)\n"),
        ])
    func progressBar(progress: SyncProgress, bar: String) {
        #expect(progress.bar == bar)
    }

    @Test("the information line names the model and says what the device does not report")
    func infoLine() {
        let full = DeviceInfo(serialNumber: "PO3-0042", firmwareRevision: "1.2.0", batteryLevel: 80)
        #expect(
            full.line(model: .po3) == "PO3 (devicemodel 300), serial PO3-0042, firmware 1.2.0, battery 80%")
        let bare = DeviceInfo(serialNumber: nil, firmwareRevision: nil, batteryLevel: nil)
        #expect(
            bare.line(model: .bp5)
                == "BP5 (devicemodel 100), serial not reported, firmware not reported, battery not reported")
    }

    @Test(
        "a live sample is one compact JSON object, keys sorted, RR intervals to a tenth of a millisecond",
        arguments: [
            (LiveSample.oximetry(spO2: 97, pulseRate: 64, perfusionIndex: 4.5), #"{"bpm":64,"pi":4.5,"spo2":97}"#),
            (.oximetry(spO2: nil, pulseRate: 70, perfusionIndex: nil), #"{"bpm":70}"#),
            (.pulseWave(42), #"{"wave":42}"#),
            (.cuffPressure(123.5), #"{"cuffPressure":123.5}"#),
            (.heartRate(beatsPerMinute: 61, rrIntervals: [812.34, 790.06]), #"{"bpm":61,"rr":[812.3,790.1]}"#),
            (.heartRate(beatsPerMinute: nil, rrIntervals: []), #"{"rr":[]}"#),
        ])
    func liveJSON(sample: LiveSample, json: String) {
        #expect(sample.json == json)
    }

    @Test("a scan lists the health profiles a device advertises in the table's order, and no other service")
    func healthProfiles() {
        let scale = Advertisement(
            mac: MACAddress("004D3208D30B")!, localName: "HS2 1", services: [0x181B, 0xFFD0, 0x181D], isPaired: true,
            rssi: -60)
        #expect(scale.healthProfileNames == "Weight Scale (0x181D), Body Composition (0x181B)")
        let band = Advertisement(
            mac: MACAddress("004D3208D310")!, localName: "Fit", services: [0xFFD0], isPaired: false, rssi: -70)
        #expect(band.healthProfileNames.isEmpty)
    }

    @Test("a kept measurement gets what the hub keeps under vitalbridge; a bare number and a clean one get nothing")
    func annotations() throws {
        // a blood pressure of user 5 with body movement
        let bytes: [UInt8] = [0x18, 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00, 0x05, 0x01, 0x00]
        let body = ["systolic": 120]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let annotated = AnnotatedJSON.document(body, of: bytes, uuid: BloodPressureMeasurement.uuid)
        #expect(
            String(decoding: try encoder.encode(annotated), as: UTF8.self)
                == #"{"systolic":120,"vitalbridge":{"status":["bodyMovement"],"userIndex":5}}"#)
        let bare = AnnotatedJSON.document(body, of: bytes, uuid: nil)
        #expect(String(decoding: try encoder.encode(bare), as: UTF8.self) == #"{"systolic":120}"#)
        // no status, no user, no special value: nothing to say
        let clean: [UInt8] = [0x00, 0x78, 0x00, 0x50, 0x00, 0x5D, 0x00]
        #expect(HubAnnotationsJSON(decoding: clean, of: BloodPressureMeasurement.uuid) == nil)
        #expect(!annotatedCharacteristics.contains(0x2A37))
    }
}
