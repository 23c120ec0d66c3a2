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
    }

    private(set) var marks: [Mark] = []
    /// Whether marks are days rather than readings.
    private(set) var daily = false
    /// How many readings the series holds.
    private(set) var readings = 0
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Adds a reading taken at local time `time` with values `low` to `high` (equal for a single value).
    mutating func add(time: Int64, low: Double, high: Double) {
        readings += 1
        guard daily else {
            marks.append(Mark(time: time, low: low, high: high, count: 1))
            if marks.count > limit { collapse() }
            return
        }
        merge(Mark(time: Self.dayStart(time), low: low, high: high, count: 1))
    }

    /// The marks of one day per day from now on, the readings so far included.
    private mutating func collapse() {
        let readings = marks
        marks = []
        daily = true
        for mark in readings { merge(Mark(time: Self.dayStart(mark.time), low: mark.low, high: mark.high, count: 1)) }
    }

    private mutating func merge(_ day: Mark) {
        // readings come in time order, so a day's readings follow each other
        if let last = marks.last, last.time == day.time {
            marks[marks.count - 1] = Mark(
                time: last.time, low: min(last.low, day.low), high: max(last.high, day.high),
                count: last.count + day.count)
        } else {
            marks.append(day)
        }
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
