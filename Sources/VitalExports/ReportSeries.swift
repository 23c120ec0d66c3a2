/// The marks of one chart over time: one per reading, or one per day once there are more readings than a chart can
/// show apart; memory stays bounded by the larger of the limit and the number of days.
struct TimeSeries {
    /// One mark: a reading (`count` 1, `low` and `high` its values), or a day's readings (their lowest and highest).
    struct Mark {
        /// Local time, seconds since 1970 (a day's start for a day).
        var time: Int64
        var low: Double
        var high: Double
        var count: Int
        /// How many of its readings the device said something about (a status, a value it could not measure).
        var flagged = 0
        /// What the devices said: status names and unavailable values (`systolic=NaN`), each once, in order.
        var flags: [String] = []
        /// Whether the device could not measure the low value (then `low` is `high`'s), or the high one.
        var lowMissing = false
        var highMissing = false

        /// Whether the mark has no value to plot: every reading in it was unavailable.
        var isUnmeasured: Bool { lowMissing && highMissing }
    }

    private(set) var marks: [Mark] = []
    /// Whether marks are days rather than readings.
    private(set) var daily = false
    /// How many readings the series holds.
    private(set) var readings = 0
    /// Every name the series' readings carry (statuses, `systolic=NaN`), each once, in order.
    private(set) var flags: [String] = []
    /// Whether a mark is flagged, and whether one has no value to plot.
    private(set) var hasFlagged = false
    private(set) var hasUnmeasured = false
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Adds a reading taken at local time `time` with values `low` to `high` (equal for a single value).
    mutating func add(time: Int64, low: Double, high: Double) {
        add(Mark(time: time, low: low, high: high, count: 1))
    }

    /// Adds a reading the device said something about: `flags` names it (statuses, `systolic=NaN`), and a value it
    /// could not measure is `nil`, never plotted.
    mutating func add(time: Int64, low: Double?, high: Double?, flags: [String]) {
        let value = low ?? high ?? 0
        var mark = Mark(time: time, low: low ?? value, high: high ?? value, count: 1)
        mark.lowMissing = low == nil
        mark.highMissing = high == nil
        mark.flagged = flags.isEmpty ? 0 : 1
        mark.flags = flags
        for flag in flags where !self.flags.contains(flag) { self.flags.append(flag) }
        hasFlagged = hasFlagged || !flags.isEmpty
        hasUnmeasured = hasUnmeasured || mark.isUnmeasured
        add(mark)
    }

    private mutating func add(_ mark: Mark) {
        readings += 1
        guard daily else {
            marks.append(mark)
            if marks.count > limit { collapse() }
            return
        }
        var day = mark
        day.time = Self.dayStart(mark.time)
        merge(day)
    }

    /// The marks of one day per day from now on, the readings so far included.
    private mutating func collapse() {
        let readings = marks
        marks = []
        daily = true
        for mark in readings {
            var day = mark
            day.time = Self.dayStart(mark.time)
            merge(day)
        }
    }

    private mutating func merge(_ day: Mark) {
        // readings come in time order, so a day's readings follow each other
        guard let last = marks.last, last.time == day.time else {
            marks.append(day)
            return
        }
        // a reading without a value to plot adds to the day's count, never to its span
        var merged =
            last.isUnmeasured
            ? day
            : day.isUnmeasured
                ? last
                : Mark(
                    time: last.time, low: min(last.low, day.low), high: max(last.high, day.high), count: 0)
        if !last.isUnmeasured && !day.isUnmeasured {
            merged.lowMissing = last.lowMissing && day.lowMissing
            merged.highMissing = last.highMissing && day.highMissing
        }
        merged.time = last.time
        merged.count = last.count + day.count
        merged.flagged = last.flagged + day.flagged
        merged.flags = last.flags + day.flags.filter { !last.flags.contains($0) }
        marks[marks.count - 1] = merged
    }

    static func dayStart(_ time: Int64) -> Int64 {
        let day = time >= 0 ? time / 86_400 : (time - 86_399) / 86_400
        return day * 86_400
    }
}

/// The values of one chart by day (steps, sleep): a day a second device also reports keeps the larger total, so two
/// devices worn the same day are not added up.
struct DaySeries {
    /// One day's value, split into named parts that stack (deep, light and awake sleep), in minutes or counts.
    struct Day {
        var day: Int64
        var parts: [(name: String, value: Double)]
        var total: Double { parts.reduce(0) { $0 + $1.value } }
    }

    private(set) var days: [Day] = []
    private var index: [Int64: Int] = [:]

    /// Adds a day (days since 1970); one already there is kept if its total is the larger.
    mutating func add(day: Int64, parts: [(name: String, value: Double)]) {
        let new = Day(day: day, parts: parts)
        if let existing = index[day] {
            if new.total > days[existing].total { days[existing] = new }
            return
        }
        index[day] = days.count
        days.append(new)
    }

    /// The days in date order.
    var sorted: [Day] { days.sorted { $0.day < $1.day } }
}
