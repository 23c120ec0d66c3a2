import Benchmark
import HealthGATT

/// A Blood Pressure Measurement with every field (Nordic's full vector).
let bloodPressureBytes: [UInt8] = [
    0x1E, 0x8A, 0x00, 0x58, 0x00, 0x78, 0x00, 0x00, 0x00, 0x04, 0x11, 0x14, 0x29, 0x3B, 0x3C, 0x00, 0x01, 0x27, 0x00,
]

/// A Glucose Measurement with every field (Nordic's vector).
let glucoseBytes: [UInt8] = [
    0x1B, 0x01, 0x00, 0xE3, 0x07, 0x02, 0x1B, 0x0B, 0x0A, 0x1E, 0xFB, 0xFF, 0x1E, 0x00, 0x12, 0x05, 0x01,
]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega, maxDuration: .seconds(2))

    Benchmark("Decode a Blood Pressure Measurement (19 bytes, every field)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? BloodPressureMeasurement(bytes: bloodPressureBytes))
        }
    }

    Benchmark("Decode a Glucose Measurement (17 bytes, every field)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? GlucoseMeasurement(bytes: glucoseBytes))
        }
    }
}
