import VitalCore

extension HealthReport {
    /// The report as one HTML document: `title`, the line `subtitle` under it (what the report covers), the latest
    /// readings, then a chart per quantity that has readings, each with its CSV.
    public func html(title: String, subtitle: String) -> [UInt8] {
        var page: [UInt8] = []
        write(title: title, subtitle: subtitle) { page.append(contentsOf: $0.utf8) }
        return page
    }

    /// The same document as `html(title:subtitle:)`, handed to `output` in small parts (a chart's SVG mark, a CSV
    /// row) as they are made, so that neither the page nor a chart is ever held whole in memory: a report of a long
    /// history (a mark a day for 26 years) is about 1.8 MB, and holding it, its charts' marks and rows and their
    /// joined copies made `report` the one command over 40 MiB on a home of 1,000,000 readings
    /// (Benchmarks/history.sh). The parts, concatenated, are byte for byte the document `html(title:subtitle:)`
    /// returns.
    public func write(title: String, subtitle: String, to output: (String) -> Void) {
        output(
            """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
            <title>\(escape(title))</title>
            <style>\(Self.style)\(series.values.contains { $0.hasFlagged } ? Self.flagStyle : "")</style>
            </head>
            <body>
            <header><h1>\(escape(title))</h1><p>\(escape(subtitle))</p>\(summary)</header>

            """)
        if readings == 0 {
            output("<p class=\"empty\">No readings to show.</p>\n")
        } else {
            output(latestTable)
            for chart in Chart.all { section(chart, to: output) }
        }
        output("</body>\n</html>\n")
    }

    private var summary: String {
        guard let first, let last else { return "" }
        return
            "<p>\(readings) readings, \(Self.time(first, withClock: false)) to \(Self.time(last, withClock: false)); "
            + "times are local.</p>"
    }

    private var latestTable: String {
        let order =
            Readout.all.map(\.quantity) + ["Steps", "Sleep", "Sports", "Sport totals", "Sleep segments"]
        let rows = order.compactMap { quantity in
            latest[quantity].map {
                "<tr><th scope=\"row\">\(quantity)</th><td>\(escape($0.value))</td>"
                    + "<td>\(Self.time($0.time, withClock: !$0.wholeDay))</td><td>\(escape($0.device))</td></tr>\n"
            }
        }
        return """
            <section id="latest"><h2>Latest readings</h2>
            <table><thead><tr><th>Quantity</th><th>Value</th><th>Taken</th><th>Device</th></tr></thead><tbody>
            \(rows.joined())</tbody></table></section>

            """
    }

    // MARK: Charts

    /// What a chart's drawing hands out: its SVG marks, or its CSV rows (the header first).
    private enum Part {
        case svg
        case csv
    }

    /// The section of `chart` (title, note, SVG and CSV) to `output`, a mark or a row at a time; nothing if the
    /// chart has no readings. The chart is drawn three times, for its SVG, its CSV as a link and its CSV as text,
    /// so that none of them is held whole.
    private func section(_ chart: Chart, to output: (String) -> Void) {
        let draw: (Part, (String) -> Void) -> Void
        let count: Int
        let note: String
        if chart.shape == .bars {
            guard let days = days[chart], !days.days.isEmpty else { return }
            let sorted = days.sorted
            draw = { dayChart(chart, sorted, $0, to: $1) }
            count = sorted.count
            note = chart.note(true)
        } else {
            guard let series = series[chart], series.readings > 0 else { return }
            draw = { timeChart(chart, series, $0, to: $1) }
            count = series.marks.count
            note = chart.note(series.daily)
        }
        let title = chart.title(units)
        let legend = series[chart].map(legend) ?? ""
        output(
            """
            <section class="chart" id="\(chart.id)"><h2>\(escape(title))</h2>
            <p class="note">\(escape(note))</p>
            <svg data-chart="\(chart.id)" role="img" aria-label="\(escape(title))" viewBox="0 0 \(Int(Plot.width)) \(Int(Plot.height))" xmlns="http://www.w3.org/2000/svg">

            """)
        var first = true
        draw(.svg) { mark in
            if !first { output("\n") }
            first = false
            output(mark)
        }
        output(
            "\n</svg>\n\(legend)<p><a download=\"\(chart.id).csv\" href=\"data:text/csv;charset=utf-8,")
        let lineEnd = PercentEncoding.encode("\r\n")
        draw(.csv) { row in
            output(PercentEncoding.encode(row))
            output(lineEnd)
        }
        output(
            "\">Download the data (CSV)</a></p>\n"
                + "<details><summary>The data behind this chart (\(count) rows)</summary><pre>")
        draw(.csv) { row in
            output(escape(row))
            output("\r\n")
        }
        output("</pre></details>\n</section>\n")
    }

    /// The legend of the marks of readings a device said something about, with every name they carry; empty for a
    /// chart without such marks.
    private func legend(_ series: TimeSeries) -> String {
        guard series.hasFlagged else { return "" }
        var items: [String] = []
        let statuses = series.flags.filter { !$0.contains("=") }.map(ReadingStatus.words)
        let values = series.flags.filter { $0.contains("=") }
        if !statuses.isEmpty {
            items.append(
                "<li><svg class=\"key\" viewBox=\"0 0 16 16\"><circle class=\"flag\" cx=\"8\" cy=\"8\" r=\"6\"/>"
                    + "<circle class=\"dot\" cx=\"8\" cy=\"8\" r=\"3\"/></svg> Ringed: the device reported a status "
                    + "with the reading (here: \(escape(statuses.joined(separator: ", ")))); the point's title and the "
                    + "CSV's flags column name it.</li>")
        }
        if !values.isEmpty {
            items.append(
                "<li><svg class=\"key\" viewBox=\"0 0 16 16\"><path class=\"unmeasured\" d=\"M8 3L13 13H3Z\"/></svg> "
                    + "A value the device could not measure (here: \(escape(values.joined(separator: ", ")))) is never "
                    + "plotted as a number: its reading is ringed at the values it has, or, with no value left, a "
                    + "triangle on the time axis; its CSV cell is empty.</li>")
        }
        return "<ul class=\"legend\">\(items.joined())</ul>\n"
    }

    /// A unit as CSV headers write it (as `records` does): `mg_dL`, `C`.
    private func csvUnit(_ unit: VitalUnit) -> String {
        String(unit.symbol.compactMap { $0 == "/" ? "_" : $0 == "°" ? nil : $0 })
    }

    /// Draws a time chart: its SVG marks (grid, axis, references, trend, a mark a reading or day) or its CSV rows,
    /// as `part` says, each to `output` as it is made.
    private func timeChart(_ chart: Chart, _ series: TimeSeries, _ part: Part, to output: (String) -> Void) {
        let marks = series.marks
        let unit = chart.unit.map { units[keyPath: $0] }
        let unitText = unit?.symbol ?? "%"
        let digits = unit?.fractionDigits ?? 0
        /// A value as a callback writes it in the chart's unit: `18.0` kPa, `78.10` kg.
        func value(_ number: Double) -> String {
            FixedDecimal(rounding: number, scale: digits)?.description ?? Self.number(number)
        }
        // what the devices said is a last column, only in a chart that has some: the others are as they were
        let flagged = series.hasFlagged
        let span = series.daily ? 86_400.0 : 0
        let plot: Plot
        var (start, end) = (0.0, 0.0)
        switch part {
        case .svg:
            let measured = series.hasUnmeasured ? marks.filter { !$0.isUnmeasured } : marks
            let references = chart.references(units)
            let values =
                measured.flatMap { [$0.low, $0.high] }
                + references.flatMap { [$0.low] + ($0.high.map { [$0] } ?? []) }
            // a margin of 2 % each side, so that the first and last marks are not cut by the plot's edges
            start = Double(marks.first!.time)
            end = Double(marks.last!.time) + span
            let margin = (end - start) * 0.02
            plot = Plot(
                x: (start - margin)...(end + margin), values: values, ceiling: chart.ceiling)
            for line in plot.grid() + plot.timeAxis() { output(line) }
            for reference in references {
                output(plot.reference(reference.low, reference.high, label: reference.label, style: reference.style))
            }
            if chart.trend, measured.count >= 2, let trend = Self.trend(measured) {
                output(
                    "<line class=\"trend\" x1=\"\(Plot.f(plot.px(start)))\" y1=\"\(Plot.f(plot.py(trend(start))))\" "
                        + "x2=\"\(Plot.f(plot.px(end)))\" y2=\"\(Plot.f(plot.py(trend(end))))\"/>")
            }
        case .csv:
            // the rows need no plot: one over nothing, never drawn
            plot = Plot(x: 0...1, values: [0], ceiling: nil)
            let suffix = unit.map(csvUnit) ?? "percent"
            let column = chart.column + "_" + suffix
            var header: String
            if series.daily {
                header = "day,lowest_\(column),highest_\(column),readings"
            } else if case .ranges(let high, let low) = chart.shape {
                header = "time,\(high)_\(suffix),\(low)_\(suffix)"
            } else {
                header = "time,\(column)"
            }
            if flagged { header += series.daily ? ",flagged,flags" : ",flags" }
            output(header)
        }
        // a plain mark's empty flags columns, in a chart that has flagged ones
        let noFlags = flagged ? (series.daily ? ",0," : ",") : ""
        for mark in marks {
            let x = part == .svg ? plot.px(Double(mark.time) + span / 2) : 0
            if flagged, mark.flagged > 0 || mark.isUnmeasured || mark.lowMissing || mark.highMissing {
                let (drawn, row) = flaggedMark(mark, chart: chart, x: x, plot: plot, daily: series.daily, value: value)
                output(part == .svg ? drawn : row)
                continue
            }
            if series.daily {
                let day = Self.time(mark.time, withClock: false)
                switch part {
                case .svg:
                    let title =
                        "\(day): \(mark.count) readings, \(value(mark.low)) to \(value(mark.high)) \(unitText)"
                    output(
                        "<line class=\"point day\" x1=\"\(Plot.f(x))\" y1=\"\(Plot.f(plot.py(mark.low)))\" x2=\"\(Plot.f(x))\" "
                            + "y2=\"\(Plot.f(plot.py(mark.high)))\"><title>\(escape(title))</title></line>")
                case .csv: output("\(day),\(value(mark.low)),\(value(mark.high)),\(mark.count)\(noFlags)")
                }
            } else if case .ranges(let high, let low) = chart.shape {
                let time = Self.time(mark.time, withClock: true)
                switch part {
                case .svg:
                    let pressure = "\(value(mark.high))/\(value(mark.low))"
                    output(
                        "<g class=\"point\"><title>\(time): \(pressure) \(escape(unitText))</title>"
                            + "<line x1=\"\(Plot.f(x))\" y1=\"\(Plot.f(plot.py(mark.low)))\" x2=\"\(Plot.f(x))\" "
                            + "y2=\"\(Plot.f(plot.py(mark.high)))\"/>"
                            + "<circle class=\"\(high)\" cx=\"\(Plot.f(x))\" cy=\"\(Plot.f(plot.py(mark.high)))\" r=\"3\"/>"
                            + "<circle class=\"\(low)\" cx=\"\(Plot.f(x))\" cy=\"\(Plot.f(plot.py(mark.low)))\" r=\"3\"/></g>"
                    )
                case .csv: output("\(time),\(value(mark.high)),\(value(mark.low))\(noFlags)")
                }
            } else {
                let time = Self.time(mark.time, withClock: true)
                switch part {
                case .svg:
                    output(
                        "<circle class=\"point\" cx=\"\(Plot.f(x))\" cy=\"\(Plot.f(plot.py(mark.low)))\" r=\"3\">"
                            + "<title>\(time): \(value(mark.low)) \(escape(unitText))</title></circle>")
                case .csv: output("\(time),\(value(mark.low))\(noFlags)")
                }
            }
        }
    }

    /// A flag as a person reads it: a status in words (`body movement`), an unmeasured value as it is
    /// (`diastolic=NaN`).
    private static func spoken(_ flag: String) -> String { flag.contains("=") ? flag : ReadingStatus.words(flag) }

    /// A mark of a chart whose readings a device said something about, and its CSV row (with the flags last): a
    /// ringed point (or line, for blood pressure or a day) at the values it has, or a triangle on the time axis for
    /// a mark with no value; a plain mark of such a chart as usual. `value` writes a number in the chart's unit.
    private func flaggedMark(
        _ mark: TimeSeries.Mark, chart: Chart, x: Double, plot: Plot, daily: Bool, value: (Double) -> String
    ) -> (svg: String, csv: String) {
        let unitText = chart.unit.map { units[keyPath: $0].symbol } ?? "%"
        let when = Self.time(mark.time, withClock: !daily)
        let flags = mark.flags.joined(separator: " ")
        // a person reads the title: statuses in words; the CSV keeps their names
        let said = mark.flags.isEmpty ? "" : " [\(mark.flags.map(Self.spoken).joined(separator: ", "))]"
        let high = mark.highMissing ? "" : value(mark.high)
        let low = mark.lowMissing ? "" : value(mark.low)
        let row: String
        if daily {
            row = "\(when),\(low),\(high),\(mark.count),\(mark.flagged),\(flags)"
        } else if case .ranges = chart.shape {
            row = "\(when),\(high),\(low),\(flags)"
        } else {
            row = "\(when),\(low),\(flags)"
        }
        let at = Plot.f(x)
        if mark.isUnmeasured {
            let axis = Plot.height - Plot.bottom
            let title = daily ? "\(when): \(mark.count) readings, none measured\(said)" : "\(when): not measured\(said)"
            return (
                "<path class=\"point unmeasured\" d=\"M\(at) \(Plot.f(axis - 9))L\(Plot.f(x + 5)) \(Plot.f(axis))"
                    + "H\(Plot.f(x - 5))Z\"><title>\(escape(title))</title></path>", row
            )
        }
        let ring = mark.flagged > 0
        let classes = ring ? "point flagged" : "point"
        let top = Plot.f(plot.py(mark.high))
        let bottom = Plot.f(plot.py(mark.low))
        let ringMark = ring ? "<circle class=\"flag\" cx=\"\(at)\" cy=\"\(top)\" r=\"6\"/>" : ""
        if daily {
            let title =
                "\(when): \(mark.count) readings, \(value(mark.low)) to \(value(mark.high)) \(unitText)"
                + (ring ? ", \(mark.flagged) flagged\(said)" : "")
            return (
                "<g class=\"\(classes) day\"><title>\(escape(title))</title><line class=\"day\" x1=\"\(at)\" "
                    + "y1=\"\(bottom)\" x2=\"\(at)\" y2=\"\(top)\"/>\(ringMark)</g>", row
            )
        }
        if case .ranges(let highName, let lowName) = chart.shape {
            let title = "\(when): \(high.isEmpty ? "-" : high)/\(low.isEmpty ? "-" : low) \(unitText)\(said)"
            var parts = ""
            if !mark.lowMissing && !mark.highMissing {
                parts += "<line x1=\"\(at)\" y1=\"\(bottom)\" x2=\"\(at)\" y2=\"\(top)\"/>"
            }
            if !mark.highMissing { parts += "<circle class=\"\(highName)\" cx=\"\(at)\" cy=\"\(top)\" r=\"3\"/>" }
            if !mark.lowMissing { parts += "<circle class=\"\(lowName)\" cx=\"\(at)\" cy=\"\(bottom)\" r=\"3\"/>" }
            return ("<g class=\"\(classes)\"><title>\(escape(title))</title>\(parts)\(ringMark)</g>", row)
        }
        let title = "\(when): \(value(mark.low)) \(unitText)\(said)"
        return (
            "<g class=\"\(classes)\"><title>\(escape(title))</title>"
                + "<circle class=\"dot\" cx=\"\(at)\" cy=\"\(bottom)\" r=\"3\"/>\(ringMark)</g>", row
        )
    }

    /// Draws a day chart: its SVG marks (grid, axis, a stack of bars a day) or its CSV rows, as `part` says, each to
    /// `output` as it is made.
    private func dayChart(_ chart: Chart, _ days: [DaySeries.Day], _ part: Part, to output: (String) -> Void) {
        let scale = chart == .sleep ? 1.0 / 60 : 1
        let first = Double(days.first!.day * 86_400)
        let plot = Plot(
            x: first...Double((days.last!.day + 1) * 86_400), values: [0] + days.map { $0.total * scale }, ceiling: nil)
        switch part {
        case .svg: for line in plot.grid() + plot.timeAxis(days: true) { output(line) }
        case .csv: output(chart == .steps ? "day,steps" : "day,asleep_min,deep_min,light_min,awake_min")
        }
        let width = max(1, plot.px(86_400 + first) - plot.px(first) - 2)
        for day in days {
            let date = CalendarDate(daysSince1970: day.day).description
            let parts = Dictionary(day.parts.map { ($0.name, Int($0.value)) }, uniquingKeysWith: +)
            let asleep = parts["asleep"] ?? ((parts["deep"] ?? 0) + (parts["light"] ?? 0))
            guard part == .svg else {
                if chart == .steps {
                    output("\(date),\(Int(day.total))")
                } else {
                    output(
                        "\(date),\(asleep),\(parts["deep"].map(String.init) ?? ""),\(parts["light"].map(String.init) ?? ""),"
                            + "\(parts["awake"].map(String.init) ?? "")")
                }
                continue
            }
            let x = plot.px(Double(day.day * 86_400)) + 1
            var base = 0.0
            var bars = ""
            for part in day.parts {
                let top = base + part.value * scale
                bars +=
                    "<rect class=\"\(part.name)\" x=\"\(Plot.f(x))\" y=\"\(Plot.f(plot.py(top)))\" width=\"\(Plot.f(width))\" "
                    + "height=\"\(Plot.f(plot.py(base) - plot.py(top)))\"/>"
                base = top
            }
            let title =
                chart == .steps
                ? "\(date): \(Int(day.total)) steps"
                : "\(date): \(Self.hours(asleep)) asleep"
                    + (parts["deep"] != nil
                        ? " (deep \(parts["deep"]!) min, light \(parts["light"]!) min, awake \(parts["awake"]!) min)"
                        : "")
            output("<g class=\"point\"><title>\(escape(title))</title>\(bars)</g>")
        }
    }

    /// The least-squares line through the marks (their middles), as value at a time; `nil` if all share one time.
    static func trend(_ marks: [TimeSeries.Mark]) -> ((Double) -> Double)? {
        let origin = Double(marks[0].time)
        let points = marks.map { (Double($0.time) - origin, ($0.low + $0.high) / 2) }
        let count = Double(points.count)
        let meanX = points.reduce(0) { $0 + $1.0 } / count
        let meanY = points.reduce(0) { $0 + $1.1 } / count
        let sxx = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.0 - meanX) }
        guard sxx > 0 else { return nil }
        let slope = points.reduce(0) { $0 + ($1.0 - meanX) * ($1.1 - meanY) } / sxx
        return { time in meanY + slope * (time - origin - meanX) }
    }

    /// A local time (seconds since 1970, already shifted) as `yyyy-MM-dd HH:mm`, or the date alone.
    static func time(_ time: Int64, withClock: Bool) -> String {
        let text = Timestamp(secondsSince1970: time).description
        return withClock ? String(text.prefix(16)) : String(text.prefix(10))
    }

    static let style = """
        body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2733;margin:2rem auto;\
        max-width:60rem;padding:0 1rem}h1{margin-bottom:.2rem}h2{margin:2rem 0 .3rem;font-size:1.15rem}\
        header p{margin:.2rem 0;color:#4a5866}.note{margin:.2rem 0 .5rem;color:#4a5866;font-size:.9rem}\
        table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.35rem .6rem;border-bottom:1px solid #dde3ea}\
        thead th{font-size:.85rem;color:#4a5866}svg{width:100%;height:auto;background:#fbfcfd;border:1px solid #e3e8ee}\
        .grid line{stroke:#e3e8ee}.grid text,.axis text{font-size:11px;fill:#5e6b78}.axis line{stroke:#b8c2cc}\
        .band.stage1{fill:#f6c343;opacity:.18}.band.target{fill:#2fb380;opacity:.14}\
        .line{stroke-width:1.2}.line.stage1{stroke:#d99a00;stroke-dasharray:5 4}.line.stage2{stroke:#c8453b}\
        .line.target{stroke:#2fb380;stroke-dasharray:5 4}.reference text{font-size:11px;fill:#5e6b78}\
        g.point line{stroke:#3a6ea5;stroke-width:2}circle.systolic{fill:#c8453b}circle.diastolic{fill:#3a6ea5}\
        circle.point{fill:#3a6ea5}line.point.day{stroke:#3a6ea5;stroke-width:4;stroke-linecap:round}\
        .trend{stroke:#7a4fb5;stroke-width:2;stroke-dasharray:8 4}rect.steps{fill:#3a6ea5}rect.asleep{fill:#5a7fc0}\
        rect.deep{fill:#2d4e8a}rect.light{fill:#7da1dc}rect.awake{fill:#f0b45a}details{margin:.3rem 0 1rem}\
        pre{max-height:16rem;overflow:auto;background:#f3f5f8;padding:.5rem;font-size:12px}.empty{color:#4a5866}
        """

    /// The style of marked points and their legend, added only to a page that has some.
    static let flagStyle = """
        circle.flag{fill:none;stroke:#d4580f;stroke-width:2}.unmeasured{fill:#d4580f}circle.dot{fill:#3a6ea5}\
        g.point line.day{stroke:#3a6ea5;stroke-width:4;stroke-linecap:round}\
        .legend{margin:.3rem 0;padding-left:1.2rem;font-size:.9rem;color:#4a5866}svg.key{width:16px;height:16px;\
        border:0;background:none;vertical-align:middle}
        """
}
