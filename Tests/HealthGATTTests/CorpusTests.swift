import HealthGATT
import Testing
import VitalTestSupport

/// The seeds of `Fuzz/Sources/FuzzHealthGATT`: this target's examples, each after the byte that picks its
/// characteristic there.
@Suite("Fuzz corpus: HealthGATT")
struct HealthGATTCorpusTests {
    /// The characteristics in FuzzHealthGATT's order: a seed's first byte is the index of its decoder.
    static let decoders: [(name: String, decodes: @Sendable ([UInt8]) -> Bool)] = [
        decoder(BloodPressureMeasurement.self), decoder(IntermediateCuffPressure.self),
        decoder(BloodPressureFeature.self), decoder(DateTime.self), decoder(GlucoseMeasurement.self),
        decoder(GlucoseMeasurementContext.self), decoder(GlucoseFeature.self), decoder(RecordAccessControlPoint.self),
        decoder(TemperatureMeasurement.self), decoder(WeightMeasurement.self), decoder(WeightScaleFeature.self),
        decoder(BodyCompositionMeasurement.self), decoder(PLXSpotCheckMeasurement.self),
        decoder(PLXContinuousMeasurement.self), decoder(PLXFeatures.self), decoder(HeartRateMeasurement.self),
        decoder(UserControlPoint.self), decoder(UserIndex.self), decoder(DatabaseChangeIncrement.self),
        decoder(FirstName.self), decoder(Age.self), decoder(DateOfBirth.self), decoder(Gender.self),
        decoder(Height.self), decoder(UserWeight.self),
    ]

    static func decoder<C: GATTCharacteristic>(_ type: C.Type) -> (String, @Sendable ([UInt8]) -> Bool) {
        (C.name, { (try? C(bytes: $0)) != nil })
    }

    /// The examples: the spec's and Nordic's vectors of the other suites, one value a characteristic at least.
    static let examples: [(decoder: Int, bytes: [UInt8])] =
        [
            (0, BloodPressureTests.nordicFull), (0, BloodPressureTests.nordicSome),
            (0, BloodPressureTests.nordicMinimal),
            (0, hex("06 7800 5000 5D00 E107 0A 0A 0A 0A 0A 4800")),
            (1, hex("1E 9800 FF07 FF07 E107 0A 0A 0A 0A 0A 4800 01 0000")), (2, hex("3F00")),
            (3, hex("DC07 0C 05 0B 32 1B")), (4, GlucoseTests.nordic), (4, hex("06 0700 E807 03 01 08 1E 00 38C0 11")),
            (5, GlucoseTests.context), (5, hex("10 0700 01 0500")), (6, hex("FF07")),
            (7, hex("01 03 02 E807 03 01 08 00 00")),
            (8, TemperatureTests.nordic), (8, hex("01 FFFF7F00")), (9, hex("0E B036 E807 03 01 08 00 00 02 E500 D606")),
            (9, hex("01 483C")), (10, hex("B6000000")), (11, hex("0604 EB00 E807 03 01 08 00 00 01 B036")),
            (12, PulseOximeterTests.spotCheck), (13, hex("1F 6200 4800 6100 4900 6300 4700 0000 010000 FF07")),
            (14, hex("FF00 E0FF FFFF00")), (15, hex("0E 48 3412")), (15, hex("11 3C01 2003 2003")),
        ] + RecordAccessControlPointTests.vectors.map { (7, $0.1) }
        + UserControlPointTests.vectors.map { (16, $0.1) }
        + [
            (17, hex("02")), (18, hex("2A000000")), (19, hex("C389 6C 6F 64 69 65")), (20, hex("2C")),
            (21, hex("BC07 05 11")), (22, hex("01")), (23, hex("AA00")), (24, hex("B036")),
        ]
        // FLOATs at both ends of the exponents, whose documents once printed a bare NaN (370 × 10^127, 1 × 10^-128)
        + [(8, hex("00 7201007F")), (8, hex("00 01000080"))]

    @Test("every example decodes with the decoder its first byte picks, and the committed seeds are these examples")
    func seeds() throws {
        for (index, example) in Self.examples.enumerated() {
            #expect(Self.decoders[example.decoder].decodes(example.bytes), "example \(index)")
        }
        let seeds = Self.examples.enumerated().map { index, example in
            (
                name: "\(Self.decoders[example.decoder].name.replacing(" ", with: "-"))-\(index)",
                bytes: [UInt8(example.decoder)] + example.bytes
            )
        }
        #expect(try FuzzCorpus.differences("FuzzHealthGATT", seeds) == [])
    }
}
