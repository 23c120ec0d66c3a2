import HealthGATT
import VitalCore
import VitalDevices

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Heart Rate Service sensor (VitalBridge's devicemodel 905): while the central is subscribed to Heart Rate
/// Measurement, it notifies one beat at a time, each as the world's time reaches it, with its rate and RR interval.
///
/// The RR series is a resting heart's: a mean interval from the device's seed (700–1000 ms), respiratory sinus
/// arrhythmia (±40 ms at a breathing rate of 0.2–0.3 Hz), a slower wave (±25 ms at 0.1 Hz) and noise (±12 ms),
/// with an ectopic beat about one beat in 80: an interval 40% short, then a compensatory one 40% long.
struct HeartRatePeripheral: SimulatedPeripheral {
    let runtime: DeviceRuntime

    /// The Heart Rate Service.
    static func profileServices(of configuration: SimulatedDeviceConfiguration) -> [GATTServiceLayout] {
        [GATTServiceLayout(0x180D, [(GATTCharacteristics.heartRateMeasurement, .notify)])]
    }

    /// The rhythm of the device: drawn from its seed alone.
    private var rhythm: (mean: Double, breathing: Double) {
        var random = SeededGenerator(seed: runtime.configuration.seed)
        return (Double.random(in: 700...1_000, using: &random), Double.random(in: 0.2...0.3, using: &random))
    }

    func subscribed(_ characteristic: CharacteristicID, on link: Link) {
        if characteristic == GATTCharacteristics.heartRateMeasurement, link.heartRate == nil {
            link.heartRate = HeartRateStream()
        }
    }

    /// The next beat: the world's time moves on by its interval, then it is notified. The fleet's
    /// `disconnectAfter` drops the link after that many beats.
    func waitForMore(on link: Link) -> Bool {
        guard var stream = link.heartRate else { return false }
        if case .drop = runtime.transferFailure(after: stream.beats) {
            link.enqueue(.drop)
            return true
        }
        let interval: Double
        if let compensatory = stream.compensatory {
            interval = compensatory
            stream.compensatory = nil
        } else {
            let (mean, breathing) = rhythm
            let seconds =
                Double(link.clock.elapsedTime.components.seconds)
                + Double(link.clock.elapsedTime.components.attoseconds) / 1e18
            let respiratory: Double = 40 * sin(2 * Double.pi * breathing * seconds)
            let slow: Double = 25 * sin(2 * Double.pi * 0.1 * seconds + 1)
            let noise = Double.random(in: -12...12, using: &runtime.state.generator)
            let sinus = mean + respiratory + slow + noise
            if Int.random(in: 0..<80, using: &runtime.state.generator) == 0 {
                interval = sinus * 0.6
                stream.compensatory = sinus * 1.4
            } else {
                interval = sinus
            }
        }
        let ticks = UInt16(clamping: Int((interval * 1.024).rounded()))
        link.clock.advance(by: .microseconds(Int64((Double(ticks) * 1_000_000 / 1_024).rounded())))
        let measurement = HeartRateMeasurement(
            heartRate: UInt16((60_000 / interval).rounded()), sensorContact: .detected, rrIntervals: [ticks])
        link.notify(GATTCharacteristics.heartRateMeasurement, measurement.encoded())
        stream.beats += 1
        link.heartRate = stream
        return true
    }

    func sendMeasurement(_ record: StoredRecord, on link: Link) {}
}

/// A link's beat stream: how many beats it sent, and the compensatory interval due after an ectopic beat.
struct HeartRateStream {
    var beats = 0
    var compensatory: Double?
}
