import Testing
import VitalCore

/// RR intervals as a person writes them for `vitalbridge hrv`, and the figures' line.
@Suite struct HRVTextTests {
    @Test("intervals separated by commas or one a line, spaces around them ignored")
    func intervals() throws {
        #expect(try HRV.intervals(commaSeparated: "812, 790,805.5", place: "--rr") == [812, 790, 805.5])
        #expect(try HRV.intervals(lines: "812\n\n 790 \r\n805.5\n", file: "night.txt") == [812, 790, 805.5])
    }

    @Test(
        "an item that is not a positive number of milliseconds is refused, naming where it is",
        arguments: [
            ("800,,790", "--rr item 2 ('')"), ("800,-5", "--rr item 2 ('-5')"), ("nan", "--rr item 1 ('nan')"),
            ("800,x", "--rr item 2 ('x')"), ("inf", "--rr item 1 ('inf')"),
        ])
    func refused(text: String, named: String) {
        #expect {
            try HRV.intervals(commaSeparated: text, place: "--rr")
        } throws: { "\($0)".hasPrefix(named) && "\($0)".hasSuffix("is not an interval in milliseconds") }
        #expect {
            try HRV.intervals(lines: "800\n\n0\n", file: "night.txt")
        } throws: { "\($0)" == "night.txt line 3 ('0') is not an interval in milliseconds" }
    }

    @Test("the figures' line: rounded to 0.001, null where the series is too short, the counts")
    func line() {
        #expect(
            HRVFigures(rr: [800]).jsonLine
                == #"{"rmssd": null, "sdnn": null, "power": null, "stress_index": null, "accepted": 1, "rejected": 0}"#)
        let figures = HRVFigures(rr: [812, 790, 805, 830, 799, 815, 250])
        let rmssd = ((figures.rmssd ?? 0) * 1_000).rounded() / 1_000
        #expect(figures.jsonLine.hasPrefix(#"{"rmssd": \#(rmssd), "sdnn": "#))
        #expect(figures.jsonLine.hasSuffix(#""accepted": 6, "rejected": 1}"#))
    }
}
