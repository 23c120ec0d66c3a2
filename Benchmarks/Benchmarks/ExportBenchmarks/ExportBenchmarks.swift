import Benchmark
import VitalCore
import VitalExports

/// 10,000 readings of a home: blood pressure with pulse, glucose, weight with body fat, oximetry and temperature, in
/// turn, five minutes apart.
let readings: [Reading] = (0..<10_000).map { index in
    let time = Timestamp(secondsSince1970: 1_794_873_600 + Int64(index) * 300)
    switch index % 5 {
    case 0: return .bloodPressure(.init(systolic: 120, diastolic: 80, heartRate: 64, measuredAt: time))
    case 1: return .glucose(.init(mgPerDeciliter: 98, measuredAt: time))
    case 2:
        return .weight(.init(kilograms: 70.25, measuredAt: time, bodyComposition: .init(bodyFatPercentage: 21.5)))
    case 3: return .oximetry(.init(oxygenSaturation: 97, heartRate: 71, measuredAt: time))
    default: return .temperature(.init(celsius: 36.6, measuredAt: time))
    }
}
let device = MACAddress("004D3208D2F4")!

let benchmarks: @Sendable () -> Void = {
    Benchmark(
        "FHIR transaction bundle of 10,000 readings (16,000 Observations), written to a reused buffer",
        configuration: .init(metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal], maxIterations: 20)
    ) { benchmark in
        var writer = try FHIRBundleWriter(
            type: .transaction, subject: .named("Jane Doe"), hub: "b4df37f1-14b0-482e-822e-6215b619a5d0",
            devices: [FHIRDevice(mac: device, model: .bp5)], utcOffset: { _ in 3_600 })
        var output: [UInt8] = []
        output.reserveCapacity(1 << 16)
        benchmark.startMeasurement()
        writer.begin(into: &output)
        for reading in readings {
            writer.append(reading, device: device, to: &output)
            // as the command line streams it: the buffer goes out and is reused
            if output.count >= 1 << 16 { output.removeAll(keepingCapacity: true) }
        }
        writer.finish(into: &output)
        benchmark.stopMeasurement()
        blackHole(output)
    }

    Benchmark(
        "HTML report of 10,000 readings (charts past 1,500 readings draw a mark a day)",
        configuration: .init(metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal], maxIterations: 20)
    ) { benchmark in
        benchmark.startMeasurement()
        var report = HealthReport(utcOffset: { _ in 3_600 })
        for reading in readings { report.add(reading, device: "BP5 004D3208D2F4") }
        let page = report.html(title: "Report", subtitle: "benchmark")
        benchmark.stopMeasurement()
        blackHole(page)
    }
}
