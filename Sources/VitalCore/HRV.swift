#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Heart-rate variability of a series of RR intervals (milliseconds), as DDS reports it: RMSSD, SDNN, total power
/// and Baevsky's stress index, computed on the intervals an artefact rule accepts.
public struct HRVFigures: Hashable, Sendable {
    /// Root mean square of successive differences, ms; `nil` with fewer than 2 accepted intervals.
    public var rmssd: Double?
    /// Sample standard deviation (n − 1), ms; `nil` with fewer than 2 accepted intervals.
    public var sdnn: Double?
    /// Total power, VLF + LF + HF (0.003–0.4 Hz), ms²; `nil` when the accepted series lasts under 4 seconds.
    public var power: Double?
    /// Baevsky's stress index; `nil` with fewer than 60 accepted intervals or when they are all equal.
    public var stressIndex: StressIndex?
    /// How many intervals the artefact rule accepted and rejected.
    public var accepted: Int
    public var rejected: Int

    /// The figures of `rr`, after the artefact rule (``HRV/accepted(_:)``).
    public init(rr: [Double]) {
        let (accepted, rejected) = HRV.accepted(rr)
        self.accepted = accepted.count
        self.rejected = rejected
        rmssd = HRV.rmssd(accepted)
        sdnn = HRV.sdnn(accepted)
        power = HRV.totalPower(accepted)
        stressIndex = StressIndex(nn: accepted)
    }
}

/// The HRV computations, on intervals in milliseconds.
///
/// They follow hrv-analysis (`get_time_domain_features`, and `get_frequency_domain_features` with its defaults),
/// so that its results are an independent check:
/// - RMSSD is √(mean of squared successive differences); SDNN is the standard deviation with n − 1.
/// - Total power integrates Welch's power spectral density over VLF 0.003–0.04, LF 0.04–0.15 and HF 0.15–0.4 Hz
///   (trapezoids, each band on its own bins), the series first interpolated linearly at 4 Hz on its own time axis
///   and centred. Welch: Hann windows of 256 samples (the whole series when shorter), half overlapping, each
///   segment's mean removed, 4096-point spectra, one-sided density, averaged.
public enum HRV {
    /// The shortest and longest interval accepted, ms.
    public static let plausible: ClosedRange<Double> = 300...2_000
    /// The largest change from the previous accepted interval, as a fraction of it.
    public static let largestChange = 0.2

    /// The intervals the artefact rule accepts, and how many it rejects: an interval outside 300–2000 ms, or
    /// differing by more than 20% from the previous accepted interval, is rejected.
    public static func accepted(_ rr: [Double]) -> (accepted: [Double], rejected: Int) {
        var accepted: [Double] = []
        accepted.reserveCapacity(rr.count)
        for interval in rr where plausible.contains(interval) {
            if let previous = accepted.last, abs(interval - previous) > largestChange * previous { continue }
            accepted.append(interval)
        }
        return (accepted, rr.count - accepted.count)
    }

    public static func rmssd(_ nn: [Double]) -> Double? {
        guard nn.count >= 2 else { return nil }
        var sum = 0.0
        for index in 1..<nn.count {
            let difference = nn[index] - nn[index - 1]
            sum += difference * difference
        }
        return (sum / Double(nn.count - 1)).squareRoot()
    }

    public static func sdnn(_ nn: [Double]) -> Double? {
        guard nn.count >= 2 else { return nil }
        let mean = nn.reduce(0, +) / Double(nn.count)
        let squares = nn.reduce(0) { $0 + ($1 - mean) * ($1 - mean) }
        return (squares / Double(nn.count - 1)).squareRoot()
    }

    /// Samples per second of the interpolated series.
    static let samplingFrequency = 4.0
    /// Welch's segment length and spectrum length.
    static let segmentLength = 256
    static let spectrumLength = 4_096
    /// VLF, LF and HF, Hz: each `[low, high)`.
    static let bands: [(low: Double, high: Double)] = [(0.003, 0.04), (0.04, 0.15), (0.15, 0.4)]

    /// The total power of `nn`, ms²; `nil` when its interpolated series has fewer than 16 samples (4 s).
    public static func totalPower(_ nn: [Double]) -> Double? {
        let series = interpolated(nn)
        guard series.count >= 16 else { return nil }
        return welchBandPower(series)
    }

    /// `nn` interpolated linearly at 4 Hz on its time axis (the cumulative sum of the intervals, in seconds, from
    /// the first beat), at 0, 0.25, … seconds strictly before the last beat, then centred on its mean.
    static func interpolated(_ nn: [Double]) -> [Double] {
        guard nn.count >= 2 else { return [] }
        var times = [Double](repeating: 0, count: nn.count)
        var elapsed = 0.0
        for index in 1..<nn.count {
            elapsed += nn[index]
            times[index] = elapsed / 1_000
        }
        let last = times[nn.count - 1]
        var series: [Double] = []
        series.reserveCapacity(Int(last * samplingFrequency) + 1)
        var segment = 0
        var sample = 0
        while true {
            let time = Double(sample) / samplingFrequency
            guard time < last else { break }
            while times[segment + 1] < time { segment += 1 }
            let (start, end) = (times[segment], times[segment + 1])
            let fraction = end > start ? (time - start) / (end - start) : 0
            series.append(nn[segment] + (nn[segment + 1] - nn[segment]) * fraction)
            sample += 1
        }
        let mean = series.reduce(0, +) / Double(series.count)
        for index in series.indices { series[index] -= mean }
        return series
    }

    /// The integral over the bands of Welch's density of `series`.
    ///
    /// A band's integral is a weighted sum of the periodogram's bins, Σₖ cₖ|Xₖ|², and |Xₖ|² = Σₐ,ᵦ yₐyᵦ
    /// cos(2πk(a − b)/N): so each segment contributes Σ_d r(d)·K(d), with r its autocorrelation and
    /// K(d) = Σₖ cₖ cos(2πkd/N) computed once. No spectrum is formed, and the result is the same sum.
    static func welchBandPower(_ series: [Double]) -> Double {
        let length = min(segmentLength, series.count)
        let overlap = length / 2
        let step = length - overlap
        let segments = (series.count - overlap) / step
        // the periodic Hann window, and the density scale 1/(fs·Σw²)
        let window = (0..<length).map { (position: Int) -> Double in
            0.5 - 0.5 * cos(2 * Double.pi * Double(position) / Double(length))
        }
        let scale = 1 / (samplingFrequency * window.reduce(0) { $0 + $1 * $1 })
        let kernel = bandKernel(length: length, scale: scale)
        var total = 0.0
        var segment = [Double](repeating: 0, count: length)
        for index in 0..<segments {
            let start = index * step
            var mean = 0.0
            for offset in 0..<length { mean += series[start + offset] }
            mean /= Double(length)
            for offset in 0..<length { segment[offset] = (series[start + offset] - mean) * window[offset] }
            total += weightedAutocorrelation(segment, kernel)
        }
        return total / Double(segments)
    }

    /// K(d) for d in 0..<length: Σₖ cₖ cos(2πkd/N) over the bins of the bands, cₖ the trapezoid weight of bin k in
    /// its band times the one-sided density factor 2·`scale`; K(d) for d > 0 counted twice (the pairs (a, b) and
    /// (b, a)).
    static func bandKernel(length: Int, scale: Double) -> [Double] {
        let resolution = samplingFrequency / Double(spectrumLength)
        var weights: [(bin: Int, weight: Double)] = []
        for band in bands {
            let bins = (0...spectrumLength / 2).filter {
                let frequency = Double($0) * resolution
                return frequency >= band.low && frequency < band.high
            }
            guard bins.count >= 2 else { continue }
            for (position, bin) in bins.enumerated() {
                let half = position == 0 || position == bins.count - 1
                weights.append((bin, resolution * (half ? 0.5 : 1) * 2 * scale))
            }
        }
        return (0..<length).map { lag in
            var sum = 0.0
            for (bin, weight) in weights {
                let phase = 2 * Double.pi * Double(bin * lag % spectrumLength) / Double(spectrumLength)
                sum += weight * cos(phase)
            }
            return lag == 0 ? sum : 2 * sum
        }
    }

    /// Σ_d K(d)·Σₐ yₐyₐ₊d: the segment's band power, four products at a time.
    static func weightedAutocorrelation(_ segment: [Double], _ kernel: [Double]) -> Double {
        segment.withUnsafeBufferPointer { values in
            let count = values.count
            let base = values.baseAddress!
            var total = 0.0
            for lag in 0..<count {
                let pairs = count - lag
                var sums = SIMD4<Double>()
                var index = 0
                while index + 4 <= pairs {
                    let left = UnsafeRawPointer(base + index).loadUnaligned(as: SIMD4<Double>.self)
                    let right = UnsafeRawPointer(base + index + lag).loadUnaligned(as: SIMD4<Double>.self)
                    sums += left * right
                    index += 4
                }
                var sum = sums.sum()
                while index < pairs {
                    sum += base[index] * base[index + lag]
                    index += 1
                }
                total += kernel[lag] * sum
            }
            return total
        }
    }
}
