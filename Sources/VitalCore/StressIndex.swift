/// Baevsky's stress index of a series of NN intervals: how narrow and tall their histogram is.
///
/// SI = AMo / (2 · Mo · MxDMn), with the intervals put in 50 ms bins (`[0, 50)`, `[50, 100)`, … ms):
/// - Mo, the mode, is the centre of the fullest bin in seconds (the shortest such bin when several are equally full);
/// - AMo, the amplitude of the mode, is the share of the intervals in that bin, in percent;
/// - MxDMn, the variation range, is the longest interval less the shortest, in seconds.
///
/// A steady, rigid rhythm (a tall, narrow histogram at short intervals) gives a high index; a relaxed, variable one a
/// low index. The index needs a histogram worth the name: at least ``fewestIntervals`` intervals, and a range above
/// zero (identical intervals make the formula divide by zero).
public struct StressIndex: Hashable, Sendable {
    /// The width of the histogram's bins, ms.
    public static let binWidth = 50.0
    /// The fewest intervals the index is computed on: a minute of beats at 60 a minute.
    public static let fewestIntervals = 60

    /// Mo: the centre of the fullest bin, seconds.
    public var mode: Double
    /// AMo: the share of the intervals in the fullest bin, percent.
    public var amplitude: Double
    /// MxDMn: the longest interval less the shortest, seconds.
    public var range: Double

    /// AMo / (2 · Mo · MxDMn).
    public var value: Double { amplitude / (2 * mode * range) }

    /// The index of `nn` (intervals in ms, already past the artefact rule); `nil` with fewer than
    /// ``fewestIntervals`` intervals or when they are all equal.
    public init?(nn: [Double]) {
        guard nn.count >= Self.fewestIntervals, let shortest = nn.min(), let longest = nn.max(), longest > shortest
        else { return nil }
        var counts: [Int: Int] = [:]
        for interval in nn { counts[Int((interval / Self.binWidth).rounded(.down)), default: 0] += 1 }
        // the fullest bin, the shortest of equally full ones
        let (bin, count) = counts.min { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }!
        mode = (Double(bin) + 0.5) * Self.binWidth / 1_000
        amplitude = Double(count) * 100 / Double(nn.count)
        range = (longest - shortest) / 1_000
    }

    /// The index from its three parts, as a published example gives them.
    public init(mode: Double, amplitude: Double, range: Double) {
        self.mode = mode
        self.amplitude = amplitude
        self.range = range
    }
}
