import FuzzCheck
import HealthGATT
import HealthGATTJSON
import VitalCore

// Bytes a device notifies or indicates. The first byte picks the characteristic, the rest is its value. Properties:
// no decoder traps, every value decoded encodes to bytes that decode to the same value (decode → encode → decode),
// and its `gatt decode` document is JSON a strict parser reads (no NaN, no infinity).

private let decoders: [@Sendable ([UInt8]) -> Void] = [
    check(BloodPressureMeasurement.self), check(IntermediateCuffPressure.self), check(BloodPressureFeature.self),
    check(DateTime.self), check(GlucoseMeasurement.self), check(GlucoseMeasurementContext.self),
    check(GlucoseFeature.self), check(RecordAccessControlPoint.self), check(TemperatureMeasurement.self),
    check(WeightMeasurement.self), check(WeightScaleFeature.self), check(BodyCompositionMeasurement.self),
    check(PLXSpotCheckMeasurement.self), check(PLXContinuousMeasurement.self), check(PLXFeatures.self),
    check(HeartRateMeasurement.self), check(UserControlPoint.self), check(UserIndex.self),
    check(DatabaseChangeIncrement.self), check(FirstName.self), check(Age.self), check(DateOfBirth.self),
    check(Gender.self), check(Height.self), check(UserWeight.self),
]

private func check<C: GATTCharacteristic & JSONRepresentable>(_ type: C.Type) -> @Sendable ([UInt8]) -> Void {
    { bytes in
        guard let value = try? C(bytes: bytes) else { return }
        requireRoundTrip(
            value, C.name, encode: { $0.encoded() },
            decode: { (bytes: [UInt8]) throws(GATTError) in try C(bytes: bytes) })
        let document: [UInt8]
        do {
            document = try gattJSON(value.json).serialized(pretty: false)
        } catch {
            fatalError("property broken: \(C.name) has no JSON document: \(error)")
        }
        require((try? JSON.parse(document)) != nil, "\(C.name)'s document is not strict JSON")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHealthGATT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    dispatch(fuzzInput(data, size), to: decoders)
    return 0
}
