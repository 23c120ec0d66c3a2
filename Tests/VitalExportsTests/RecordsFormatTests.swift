import Foundation
import Testing
import VitalCore
import VitalExports
import VitalTestSupport

/// `records`' three forms and the change feed's lines, in process, byte for byte.
@Suite("Records and feed formats")
struct RecordsFormatTests {
    static let mac = MACAddress("004D3208D2F4")!
    static let time = Timestamp(secondsSince1970: 1_795_000_000)

    /// 120/80 mmHg at 66 bpm, with body movement, its systolic sent as NaN.
    static var pressure: Reading {
        annotated(
            .bloodPressure(.init(systolic: 120, diastolic: 80, heartRate: 66, measuredAt: time)), [(.systolic, .nan)],
            status: .bodyMovement)
    }

    @Test("one reading in CSV, JSON and the table: an unavailable field's cell empty, named in flags, never a number")
    func readingForms() throws {
        let row = RecordRow(device: Self.mac, reading: Self.pressure)
        var csv: [UInt8] = []
        RecordsFormatter.appendCSVRow(row, to: &csv)
        let line = String(decoding: csv, as: UTF8.self)
        #expect(line.hasPrefix("004D3208D2F4,blood_pressure,2026-11-18 11:06:40,,80,66,,"))
        #expect(line.hasSuffix(",bodyMovement systolic=NaN\r\n"))
        // as many cells as the header names
        let header = RecordsFormatter.csvHeader()
        #expect(header.hasPrefix("device,kind,measured_at_utc,systolic_mmHg,diastolic_mmHg,heart_rate_bpm,"))
        #expect(
            line.split(separator: ",", omittingEmptySubsequences: false).count
                == header.split(separator: ",").count)
        let json = String(decoding: RecordsFormatter.jsonObject(row).serialized(pretty: false), as: UTF8.self)
        #expect(
            json == #"{"device":"004D3208D2F4","kind":"blood_pressure","measured_at_utc":"2026-11-18 11:06:40","#
                + #""diastolic_mmHg":80,"heart_rate_bpm":66,"flags":["bodyMovement"],"unavailable":{"systolic":"NaN"}}"#
        )
        #expect(
            RecordsFormatter.tableRow(row)
                == "004D3208D2F4  blood_pressure     2026-11-18 11:06:40  diastolic=80 mmHg, heart_rate=66 bpm, "
                + "systolic=NaN [body movement]\n")
    }

    @Test("values: whole numbers without a fraction, others exact, samples as a list, text as a string")
    func values() throws {
        #expect(RecordValue.number(72).text == "72" && RecordValue.number(-3).text == "-3")
        #expect(RecordValue.number(36.65).text == "36.65" && RecordValue.number(1e16).text == "1e+16")
        var bytes: [UInt8] = []
        for value in [RecordValue.number(-120), .number(0), .number(0.5), .flag(true)] {
            RecordsFormatter.append(value, to: &bytes)
            bytes.append(UInt8(ascii: " "))
        }
        #expect(String(decoding: bytes, as: UTF8.self) == "-120 0 0.5 true ")
        let values: [RecordValue] = [.samples([12, 40]), .text("1 08:10-08:45 120kcal"), .flag(false), .number(98.6)]
        #expect(
            String(decoding: JSON.array(values.map(\.json)).serialized(pretty: false), as: UTF8.self)
                == #"[[12,40],"1 08:10-08:45 120kcal",false,98.6]"#)
    }

    @Test("the feed's lines: the change's members in order, the reading as records writes it, text escaped")
    func feedLines() throws {
        var lines: [UInt8] = []
        ChangeFeedFormat.appendLine(
            ReadingChange(
                sequence: 7, operation: .insert, readingID: 3, device: Self.mac, reading: Self.pressure,
                person: "Ann \"A\""),
            hub: "2b1f", to: &lines)
        ChangeFeedFormat.appendLine(
            ReadingChange(sequence: 9, operation: .delete, readingID: 3, device: Self.mac, reason: "cuff\nloose"),
            hub: "2b1f", to: &lines)
        let reading = String(
            decoding: RecordsFormatter.jsonObject(RecordRow(device: Self.mac, reading: Self.pressure))
                .serialized(pretty: false), as: UTF8.self)
        #expect(
            String(decoding: lines, as: UTF8.self)
                == #"{"cursor":"2b1f:7","op":"insert","hub":"2b1f","id":3,"version":7,"device":"004D3208D2F4","#
                + #""person":"Ann \"A\"","reading":\#(reading)}"# + "\n"
                + #"{"cursor":"2b1f:9","op":"delete","hub":"2b1f","id":3,"version":9,"device":"004D3208D2F4","#
                + #""reason":"cuff\u000Aloose"}"# + "\n")
        for line in lines.split(separator: UInt8(ascii: "\n")) {
            #expect(try JSONSerialization.jsonObject(with: Data(line)) is [String: Any])
        }
    }
}
