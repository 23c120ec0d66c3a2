import HealthGATT
import Testing
import VitalCore
import VitalDevices

private let g = GATTCharacteristics.self

@Suite("PO3 history wave bytes")
struct PO3HistoryWaveBytesTests {
    @Test("a wave is 06, its sample count, then its samples, as VendorGATT documents")
    func documentedBytes() throws {
        let wave = try #require(PO3HistoryWave(samples: [20, 60, 90, 40]))
        #expect(wave.encoded == [0x06, 0x04, 0x14, 0x3C, 0x5A, 0x28])
        #expect(try PO3HistoryWave(bytes: wave.encoded) == wave)
        #expect(VendorEvent(bytes: wave.encoded) == .historyWave(wave))
        #expect(VendorEvent.historyWave(wave).encoded == wave.encoded)
        #expect(wave.readingSamples == [20, 60, 90, 40])
    }

    @Test("the longest wave, 255 samples of 0 and 100, round-trips")
    func longest() throws {
        let samples = (0..<255).map { UInt8($0 % 2 == 0 ? 0 : 100) }
        let wave = try #require(PO3HistoryWave(samples: samples))
        #expect(wave.encoded.count == 257)
        #expect(try PO3HistoryWave(bytes: wave.encoded).samples == samples)
    }

    @Test("a wave of no samples, more than 255 or a sample above 100 cannot be made")
    func invalidWaves() {
        #expect(PO3HistoryWave(samples: []) == nil)
        #expect(PO3HistoryWave(samples: Array(repeating: 50, count: 256)) == nil)
        #expect(PO3HistoryWave(samples: [50, 101]) == nil)
        #expect(PO3HistoryWave([50, -1]) == nil)
    }

    @Test(
        "bad wave bytes are refused with an error naming the field and byte",
        arguments: [
            // no count
            (
                [0x06] as [UInt8],
                GATTError(.short, characteristic: "PO3 History Wave", field: "sample_count", offset: 1)
            ),
            // a count of 0
            (
                [0x06, 0x00],
                GATTError(.invalidValue, characteristic: "PO3 History Wave", field: "sample_count", offset: 1)
            ),
            // truncated: 4 samples announced, 2 sent
            (
                [0x06, 0x04, 0x14, 0x3C],
                GATTError(.short, characteristic: "PO3 History Wave", field: "samples[2]", offset: 4)
            ),
            // overlong: a byte after the last sample
            (
                [0x06, 0x02, 0x14, 0x3C, 0x5A],
                GATTError(.tooLong, characteristic: "PO3 History Wave", field: "end", offset: 4)
            ),
            // out of range: 101
            (
                [0x06, 0x03, 0x14, 0x65, 0x5A],
                GATTError(.invalidValue, characteristic: "PO3 History Wave", field: "samples[1]", offset: 3)
            ),
            // out of range: 255
            (
                [0x06, 0x01, 0xFF],
                GATTError(.invalidValue, characteristic: "PO3 History Wave", field: "samples[0]", offset: 2)
            ),
        ])
    func badBytes(bytes: [UInt8], error: GATTError) {
        #expect(throws: error) { try PO3HistoryWave(bytes: bytes) }
        #expect(VendorEvent(bytes: bytes) == nil)
    }

    @Test("every truncation of a wave is refused as short")
    func everyPrefix() throws {
        let wave = try #require(PO3HistoryWave(samples: [20, 60, 90, 40, 10])).encoded
        for length in 1..<wave.count {
            #expect(throws: GATTError.self) { try PO3HistoryWave(bytes: Array(wave.prefix(length))) }
        }
    }
}

@Suite("PO3 driver: history records with their pulse wave")
struct PO3HistoryWaveDriverTests {
    func po3(_ script: [ScriptStep]) -> (PulseOximeterDriver, ScriptedConnection) {
        let connection = ScriptedConnection(script, offering: PulseOximeterDriverScriptTests.po3Table)
        return (PulseOximeterDriver(entry: DeviceCatalog.entry(for: .po3), connection: connection), connection)
    }

    static let wave: [UInt8] = [0x06, 0x04, 0x14, 0x3C, 0x5A, 0x28]

    @Test("a wave notified before a record is that record's; a record without one has none")
    func waveBeforeRecord() async throws {
        let (driver, connection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            .write(g.plxRACP, RACP.reportAll),
            .notify(g.vendorStatus, Self.wave), .indicate(g.plxSpotCheck, SpotChecks.first),
            .indicate(g.plxSpotCheck, SpotChecks.second),
            .indicate(g.plxRACP, RACP.response(0x01, 0x01)),
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            .write(g.plxRACP, [0x02, 0x01]), .indicate(g.plxRACP, RACP.response(0x02, 0x01)),
        ])
        let sink = RecordingSink()
        #expect(try await driver.sync(into: sink) { _ in } == 2)
        var expected = SpotChecks.readings
        if case .oximetry(var first) = expected[0] {
            first.wave = [20, 60, 90, 40]
            expected[0] = .oximetry(first)
        }
        #expect(sink.readings == expected)
        #expect(connection.unplayed == 0)
    }

    @Test(
        "bad wave bytes end the sync with a protocol violation naming what is wrong; nothing is deleted",
        arguments: [
            ([0x06, 0x04, 0x14, 0x3C] as [UInt8], "samples[2] at byte 4: the bytes end before it"),
            ([0x06, 0x02, 0x14, 0x3C, 0x5A], "end at byte 4: bytes follow the last field"),
            ([0x06, 0x02, 0x14, 0x65], "samples[1] at byte 3: its value is out of range"),
            ([0x06, 0x00], "sample_count at byte 1: its value is out of range"),
        ])
    func badWave(bytes: [UInt8], message: String) async throws {
        let (driver, connection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(2)),
            .write(g.plxRACP, RACP.reportAll),
            .indicate(g.plxSpotCheck, SpotChecks.first), .notify(g.vendorStatus, bytes),
            .indicate(g.plxSpotCheck, SpotChecks.second),
        ])
        let sink = RecordingSink()
        await #expect(throws: DeviceError(.protocolViolation, message: "PO3 History Wave: " + message)) {
            try await driver.sync(into: sink) { _ in }
        }
        #expect(!connection.writes.contains(.write(g.plxRACP, [0x02, 0x01])))
    }

    @Test("two waves for one record, or a wave after the last record, end the sync; nothing is deleted")
    func unmatchedWaves() async throws {
        let (twice, twiceConnection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(1)),
            .write(g.plxRACP, RACP.reportAll),
            .notify(g.vendorStatus, Self.wave), .notify(g.vendorStatus, Self.wave),
            .indicate(g.plxSpotCheck, SpotChecks.first),
        ])
        await #expect(throws: DeviceError(.protocolViolation, message: "two history waves came for one record")) {
            try await twice.sync(into: RecordingSink()) { _ in }
        }
        #expect(!twiceConnection.writes.contains(.write(g.plxRACP, [0x02, 0x01])))
        let (after, afterConnection) = po3([
            .write(g.plxRACP, RACP.countAll), .indicate(g.plxRACP, RACP.count(1)),
            .write(g.plxRACP, RACP.reportAll),
            .indicate(g.plxSpotCheck, SpotChecks.first), .notify(g.vendorStatus, Self.wave),
            .indicate(g.plxRACP, RACP.response(0x01, 0x01)),
        ])
        await #expect(throws: DeviceError(.protocolViolation, message: "a history wave came after the last record")) {
            try await after.sync(into: RecordingSink()) { _ in }
        }
        #expect(!afterConnection.writes.contains(.write(g.plxRACP, [0x02, 0x01])))
    }
}

@Suite("Record merging: a PO3 record's wave")
struct PO3WaveMergingTests {
    static let time = Timestamp(secondsSince1970: 1_763_700_000)
    static func reading(wave: [Int]?, spO2: Int = 97) -> Reading {
        .oximetry(OximetryReading(oxygenSaturation: spO2, heartRate: 64, wave: wave, measuredAt: time))
    }

    @Test("a record with a wave completes the same values stored without one; other waves or values are two")
    func merging() {
        #expect(RecordMerging.mayMerge(Self.reading(wave: [20, 60])))
        #expect(!RecordMerging.mayMerge(Self.reading(wave: nil)))
        #expect(
            RecordMerging.merged(Self.reading(wave: [20, 60]), with: Self.reading(wave: nil))
                == Self.reading(wave: [20, 60]))
        #expect(RecordMerging.merged(Self.reading(wave: [20, 60]), with: Self.reading(wave: [20, 61])) == nil)
        #expect(RecordMerging.merged(Self.reading(wave: [20, 60]), with: Self.reading(wave: nil, spO2: 96)) == nil)
    }
}
