import FuzzCheck
import HealthGATT

// Bytes a device notifies or indicates. The first byte picks the characteristic, the rest is its value. Properties:
// no decoder traps, and every value decoded encodes to bytes that decode to the same value (decode → encode → decode).

private let decoders: [@Sendable ([UInt8]) -> Void] = [
    check(BloodPressureMeasurement.self), check(IntermediateCuffPressure.self), check(BloodPressureFeature.self),
    check(DateTime.self), check(GlucoseMeasurement.self), check(GlucoseMeasurementContext.self),
    check(GlucoseFeature.self), check(RecordAccessControlPoint.self), check(TemperatureMeasurement.self),
    check(WeightMeasurement.self), check(WeightScaleFeature.self), check(BodyCompositionMeasurement.self),
    check(PLXSpotCheckMeasurement.self), check(PLXContinuousMeasurement.self), check(PLXFeatures.self),
    check(HeartRateMeasurement.self),
]

private func check<C: GATTCharacteristic>(_ type: C.Type) -> @Sendable ([UInt8]) -> Void {
    { bytes in
        guard let value = try? C(bytes: bytes) else { return }
        requireRoundTrip(
            value, C.name, encode: { $0.encoded() },
            decode: { (bytes: [UInt8]) throws(GATTError) in try C(bytes: bytes) })
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHealthGATT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    dispatch(fuzzInput(data, size), to: decoders)
    return 0
}
