import Benchmark
import BenchmarkInputs
import Foundation
import LayeredProtocol
import VitalCore

let measurementURL = Inputs.measurementURL

/// Blood-pressure readings an hour apart, more than a 20,000-character callback holds.
let readings: [Reading] = (0..<400).map { index in
    .bloodPressure(
        BloodPressureReading(
            systolic: Double(110 + index % 40), diastolic: Double(70 + index % 20), heartRate: 60 + index % 30,
            arrhythmia: index % 7 == 0,
            measuredAt: Timestamp(secondsSince1970: 1_700_000_000 + Int64(index) * 3600)))
}

let syncCallback: LayeredCallback = {
    let request = try! LayeredRequest(
        parsing: "ihealth-layer://?cmd=2&devicemodel=100&mac=004D3208D2F4&unit=2&ver=100&scheme=myapp", platform: .ios)
    return try! LayeredCallback(answering: request, destination: "myapp://", status: .success)
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal], maxDuration: .seconds(2), maxIterations: 1_000_000)

    Benchmark("URLComponents: parse the measurement URL and its query items (baseline)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(URLComponents(string: measurementURL)?.queryItems)
        }
    }

    Benchmark("LayeredRequest: parse and validate the measurement URL") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try? LayeredRequest(parsing: measurementURL, platform: .ios))
        }
    }

    Benchmark(
        "LayeredCallback: build a 20,000-character sync callback of blood-pressure readings",
        configuration: .init(
            metrics: [
                .wallClock, .throughput, .mallocCountTotal,
                .custom("readings in the callback", polarity: .prefersLarger, useScalingFactor: false),
            ])
    ) { benchmark in
        var included = 0
        for _ in benchmark.scaledIterations {
            let packed = try! LayeredCallback.packing(
                syncCallback, readings: readings, unit: .mmHg, maximumLength: 20_000)
            included = packed.included.count
            blackHole(packed.url)
        }
        benchmark.measurement(
            .custom("readings in the callback", polarity: .prefersLarger, useScalingFactor: false), included)
    }
}
