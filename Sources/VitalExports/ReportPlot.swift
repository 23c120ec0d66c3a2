import VitalCore

/// The drawing area of a chart: time across, values up, with its grid and axis.
struct Plot {
    static let width = 880.0
    static let height = 260.0
    static let left = 56.0
    static let right = 64.0
    static let top = 14.0
    static let bottom = 28.0

    let x: ClosedRange<Double>
    let y: ClosedRange<Double>
    let step: Double

    /// A plot over times `x` (a single time widened by half a day each way), with values from the lowest to the
    /// highest of `values` (at most `ceiling`), widened to round ticks.
    init(x: ClosedRange<Double>, values: [Double], ceiling: Double?) {
        self.x = x.lowerBound == x.upperBound ? (x.lowerBound - 43_200)...(x.upperBound + 43_200) : x
        var low = values.min() ?? 0
        var high = values.max() ?? 1
        if high - low < 1e-9 {
            low -= 1
            high += 1
        }
        let step = Self.niceStep((high - low) / 5)
        low = (low / step).rounded(.down) * step
        high = (high / step).rounded(.up) * step
        if let ceiling, high > ceiling { high = max(ceiling, low + step) }
        self.y = low...high
        self.step = step
    }

    /// 1, 2 or 5 times a power of ten, at least `raw`.
    static func niceStep(_ raw: Double) -> Double {
        var power = 1.0
        while power * 10 <= raw { power *= 10 }
        while power > raw { power /= 10 }
        for factor in [1.0, 2, 5, 10] where power * factor >= raw { return power * factor }
        return power * 10
    }

    func px(_ time: Double) -> Double {
        Self.left + (time - x.lowerBound) / (x.upperBound - x.lowerBound) * (Self.width - Self.left - Self.right)
    }

    func py(_ value: Double) -> Double {
        Self.top + (y.upperBound - value) / (y.upperBound - y.lowerBound) * (Self.height - Self.top - Self.bottom)
    }

    /// Horizontal grid lines with their values on the left, each label distinct: as many fraction digits as the
    /// step needs (`87.30`, `87.35` for a step of 0.05), at least the report's own (`120`, `36.5`).
    func grid() -> [String] {
        var lines = ["<g class=\"grid\">"]
        let digits = Self.fractionDigits(of: step)
        let count = Int(((y.upperBound - y.lowerBound) / step).rounded())
        for index in 0...count {
            // from the bottom by whole steps, not by adding a step each time, whose error grows
            let value = y.lowerBound + Double(index) * step
            let at = Self.f(py(value))
            lines.append(
                "<line x1=\"\(Self.f(Self.left))\" y1=\"\(at)\" x2=\"\(Self.f(Self.width - Self.right))\" y2=\"\(at)\"/>"
                    + "<text x=\"\(Self.f(Self.left - 6))\" y=\"\(at)\" dy=\"4\" text-anchor=\"end\">"
                    + "\(digits > 1 ? Self.fixed(value, digits: digits) : HealthReport.number(value))</text>")
        }
        lines.append("</g>")
        return lines
    }

    /// The fraction digits `step` (1, 2 or 5 times a power of ten) has: 0 for 10, 1 for 0.5, 2 for 0.05.
    static func fractionDigits(of step: Double) -> Int {
        var digits = 0
        var scaled = step
        while digits < 9, abs(scaled - scaled.rounded()) > 1e-6 * max(1, scaled) {
            scaled *= 10
            digits += 1
        }
        return digits
    }

    /// `value` rounded to `digits` fraction digits, all written: `87.30`.
    static func fixed(_ value: Double, digits: Int) -> String {
        let power = (0..<digits).reduce(Int64(1)) { power, _ in power * 10 }
        let scaled = Int64((value * Double(power)).rounded())
        let fraction = String(scaled.magnitude % UInt64(power))
        return (scaled < 0 ? "-" : "") + String(scaled.magnitude / UInt64(power)) + "."
            + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// The time axis: its line and about six labels, at times evenly spread (their date, or month, day and time of
    /// day when the plot spans under three days), or with `days`, under every few days' bars.
    func timeAxis(days: Bool = false) -> [String] {
        let bottom = Self.f(Self.height - Self.bottom)
        var lines = [
            "<g class=\"axis\"><line x1=\"\(Self.f(Self.left))\" y1=\"\(bottom)\" x2=\"\(Self.f(Self.width - Self.right))\" "
                + "y2=\"\(bottom)\"/>"
        ]
        func label(_ time: Double, _ text: String, anchor: String = "middle") {
            lines.append(
                "<text x=\"\(Self.f(px(time)))\" y=\"\(Self.f(Self.height - 8))\" text-anchor=\"\(anchor)\">\(text)</text>"
            )
        }
        if days {
            let count = Int(((x.upperBound - x.lowerBound) / 86_400).rounded())
            for day in stride(from: 0, to: count, by: max(1, (count + 5) / 6)) {
                let start = x.lowerBound + Double(day) * 86_400
                label(start + 43_200, HealthReport.time(Int64(start), withClock: false))
            }
        } else {
            let withClock = x.upperBound - x.lowerBound < 3 * 86_400
            for index in 0...5 {
                let time = x.lowerBound + (x.upperBound - x.lowerBound) * Double(index) / 5
                let text = HealthReport.time(Int64(time.rounded(.down)), withClock: withClock)
                label(
                    time, withClock ? String(text.dropFirst(5)) : text,
                    anchor: index == 0 ? "start" : index == 5 ? "end" : "middle")
            }
        }
        lines.append("</g>")
        return lines
    }

    /// A reference line at `low` labelled on the right, or a band from `low` to `high`.
    func reference(_ low: Double, _ high: Double?, label: String, style: String) -> String {
        let left = Self.f(Self.left)
        let right = Self.width - Self.right
        if let high {
            return
                "<rect class=\"\(style)\" x=\"\(left)\" y=\"\(Self.f(py(high)))\" width=\"\(Self.f(right - Self.left))\" "
                + "height=\"\(Self.f(py(low) - py(high)))\"/>"
        }
        let at = Self.f(py(low))
        return
            "<g class=\"reference\"><line class=\"\(style)\" x1=\"\(left)\" y1=\"\(at)\" x2=\"\(Self.f(right))\" y2=\"\(at)\"/>"
            + "<text x=\"\(Self.f(right + 4))\" y=\"\(at)\" dy=\"4\">\(escape(label))</text></g>"
    }

    /// A coordinate with one decimal.
    static func f(_ value: Double) -> String { HealthReport.number(value) }
}

/// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML text and attribute values.
func escape(_ text: String) -> String {
    var escaped = ""
    escaped.reserveCapacity(text.utf8.count)
    for character in text.unicodeScalars {
        switch character {
        case "&": escaped += "&amp;"
        case "<": escaped += "&lt;"
        case ">": escaped += "&gt;"
        case "\"": escaped += "&quot;"
        case "'": escaped += "&#39;"
        default: escaped.unicodeScalars.append(character)
        }
    }
    return escaped
}
