import Benchmark
import Foundation
import VitalCore

/// 24 hours of RR intervals (about 100,000 beats): a resting rhythm with respiratory sinus arrhythmia, a slower
/// wave, noise and an ectopic beat now and then, from a fixed seed.
let day: [Double] = {
    var state: UInt64 = 0x5EED
    func random() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    var series: [Double] = []
    var time = 0.0
    while time < 86_400 {
        var interval =
            860 + 40 * sin(2 * Double.pi * 0.25 * time) + 25 * sin(2 * Double.pi * 0.1 * time) + 24 * random()
        if random() < 0.01 {
            series.append(interval * 0.6)
            interval *= 1.4
        }
        series.append(interval)
        time += interval / 1_000
    }
    return series
}()

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "HRV figures (artefact rule, RMSSD, SDNN, Welch total power) of 24 hours of RR intervals",
        configuration: .init(metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal], maxIterations: 20)
    ) { benchmark in
        precondition(day.count > 95_000)
        benchmark.startMeasurement()
        let figures = HRVFigures(rr: day)
        benchmark.stopMeasurement()
        blackHole(figures)
    }
}
