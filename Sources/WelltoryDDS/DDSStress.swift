import VitalCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `stress` and `stress_c` from Baevsky's stress index: VitalBridge's mapping, as no published one to Welltory's
/// scale exists.
///
/// Baevsky's ranges of the index (conventional units, 50 ms bins): 30–200 the wide range of the norm, 60–120 its ideal
/// corridor, 120–500 distress, and past 800–1000 an organism that no longer copes. The score is the index's place
/// on a logarithmic scale from the norm's lower end to the point of exhaustion,
/// `ln(SI / 30) / ln(1000 / 30)`, held to 0…1, rounded to 0.01 as the document's example is; the colour is green up to
/// the ideal corridor's top (120), yellow within the wide norm (up to 200), red above.
public enum DDSStress {
    /// The index at which the score is 0 and 1.
    public static let scale: ClosedRange<Double> = 30...1_000
    /// The highest index of each colour but red: green up to the ideal corridor's top, yellow up to the norm's.
    public static let greenUpTo = 120.0
    public static let yellowUpTo = 200.0

    /// The score and colour of an index; `nil` (no index: too few intervals, or all equal) is unknown, with no score.
    public static func score(_ index: StressIndex?) -> (stress: Double?, colour: DDSColour) {
        guard let value = index?.value else { return (nil, .unknown("unknown")) }
        let place = log(value / scale.lowerBound) / log(scale.upperBound / scale.lowerBound)
        let stress = (min(max(place, 0), 1) * 100).rounded() / 100
        let colour: DDSColour = value <= greenUpTo ? .green : value <= yellowUpTo ? .yellow : .red
        return (stress, colour)
    }
}
