import Benchmark
import BenchmarkInputs
import HealthGATT

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .mega, maxDuration: .seconds(2))

    Benchmark("Decode a Blood Pressure Measurement (19 bytes, every field)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? BloodPressureMeasurement(bytes: Inputs.bloodPressureBytes))
        }
    }

    Benchmark("Decode a Glucose Measurement (17 bytes, every field)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? GlucoseMeasurement(bytes: Inputs.glucoseBytes))
        }
    }
}
