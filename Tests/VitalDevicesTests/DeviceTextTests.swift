import Foundation
import HealthGATT
import Testing
import VitalCore
import VitalDevices

/// What the commands print of a device's own values, made by VitalDevices: what the hub keeps of a characteristic
/// beyond its values.
@Suite("VitalDevices: a device's values as the commands print them")
struct DeviceTextTests {
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
