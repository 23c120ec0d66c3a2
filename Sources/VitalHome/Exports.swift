import Foundation
import VitalCore
import VitalDevices
import VitalExports
import VitalStore

/// Output written to a file descriptor as it is produced, 64 KiB at a time, so that any number of readings takes
/// the same memory. A closed pipe (`records | head`) ends what is written: writing then throws ``OutputClosed``, and
/// ``ChunkedOutput/closed`` says so where a store's reader wraps what its body threw.
public struct ChunkedOutput {
    /// The descriptor written to.
    public let descriptor: Int32
    private var buffer: [UInt8] = []
    /// Whether the descriptor stopped taking bytes (a closed pipe).
    public private(set) var closed = false

    /// Output to `descriptor` (standard output by default).
    public init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
        buffer.reserveCapacity(1 << 16)
    }

    /// Appends `text`, and writes the buffer out when it is full.
    public mutating func write(_ text: String) throws(OutputClosed) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Lets `body` append bytes to the buffer, then writes it out when it is full.
    public mutating func append(_ body: (inout [UInt8]) -> Void) throws(OutputClosed) {
        body(&buffer)
        if buffer.count >= 1 << 16 { try flush() }
    }

    /// Writes out what the buffer holds.
    public mutating func flush() throws(OutputClosed) {
        guard !buffer.isEmpty else { return }
        guard writeAll(buffer, to: descriptor) else {
            closed = true
            throw OutputClosed()
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The descriptor ``ChunkedOutput`` writes to stopped taking bytes: whoever read it is gone.
public struct OutputClosed: Error, Sendable {}

/// What `records` lists: the released readings, those in quarantine, or the smartbands' heart-rate minutes.
public enum RecordsSelection: Sendable {
    case readings, quarantine, heartRateMinutes
}

/// How `records` writes rows: a table, RFC 4180 CSV (with the device's own time as a column or not), or JSON.
public enum RecordsLayout: Sendable {
    case table
    case csv(deviceTime: Bool)
    case json
}

extension Hub {
    /// Writes the records `selection` chooses (of one device, from a time on) to `output` in `layout`, a row at a
    /// time, and flushes it; a closed output ends the listing without an error.
    ///
    /// - Throws: `StoreError` if the store cannot be read; `GATTError` if a band's stored item is not one.
    public func writeRecords(
        _ selection: RecordsSelection, layout: RecordsLayout, device mac: MACAddress?, since from: Timestamp?,
        to output: inout ChunkedOutput
    ) throws {
        var first = true
        func write(_ row: RecordRow) throws(OutputClosed) {
            switch layout {
            case .table: try output.write(RecordsFormatter.tableRow(row))
            case .csv(let deviceTime):
                try output.append { RecordsFormatter.appendCSVRow(row, deviceTime: deviceTime, to: &$0) }
            case .json:
                try output.append {
                    $0 += Array((first ? "\n" : ",\n").utf8)
                    $0 += RecordsFormatter.jsonObject(row).serialized(pretty: false)
                }
            }
            first = false
        }
        do {
            switch layout {
            case .table: try output.write(RecordsFormatter.tableHeader)
            case .csv(let deviceTime): try output.write(RecordsFormatter.csvHeader(deviceTime: deviceTime))
            case .json: try output.write("[")
            }
            switch selection {
            case .heartRateMinutes:
                for band in try store.devices() where band.model.isSmartband && (mac == nil || band.mac == mac) {
                    try store.readings.forEachDayItem(device: band.mac, since: from?.day) { item in
                        for row in try RecordRow.heartRateMinutes(of: item, device: band.mac)
                        where from.map({ row.time >= $0 }) ?? true {
                            try write(row)
                        }
                    }
                }
            case .quarantine:
                var held: [String: Int] = [:]
                try store.readings.forEach(device: mac, since: from, selection: .quarantined) { stored in
                    held[
                        "user \(stored.reading.annotations.userIndex.map(String.init) ?? "?") of \(stored.device)",
                        default: 0] += 1
                    try write(RecordRow(device: stored.device, reading: stored.reading))
                }
                if case .table = layout {
                    for (user, count) in held.sorted(by: { $0.key < $1.key }) {
                        try output.write(
                            "\(user): \(count) reading\(count == 1 ? "" : "s") in quarantine until assigned "
                                + "(vitalbridge people assign)\n")
                    }
                }
            case .readings:
                try store.readings.forEach(device: mac, since: from, selection: .released) {
                    try write(RecordRow(device: $0.device, reading: $0.reading))
                }
            }
            if case .json = layout { try output.write(first ? "]\n" : "\n]\n") }
            try output.flush()
        } catch  where output.closed {
            // a closed pipe (`records | head`) ends the listing
        }
    }

    /// Writes up to `limit` changes of the feed after `cursor` (from the feed's start when `nil`) to `output`, one
    /// line each, read from the store a page at a time, and flushes it; a closed output ends them without an error.
    ///
    /// - Throws: `StoreError` if the store cannot be read (what was written before stays written).
    public func writeChanges(after cursor: FeedCursor?, limit: Int, to output: inout ChunkedOutput) throws {
        let pageSize = 1_000
        do {
            var cursor = try cursor ?? store.feed.start()
            var left = limit
            while left > 0 {
                var read = 0
                let page = min(left, pageSize)
                try store.feed.forEach(after: cursor, limit: page) { change in
                    cursor.sequence = change.sequence
                    read += 1
                    try output.append { ChangeFeedFormat.appendLine(change, hub: cursor.hubID, to: &$0) }
                }
                left -= read
                if read < page { break }
            }
            try output.flush()
        } catch  where output.closed {
            return
        } catch {
            try? output.flush()
            throw error
        }
    }

    /// What a FHIR export holds beside the readings: the bundle's type, the person, glucose's unit and the time
    /// zone of the times' offsets.
    public struct FHIRExport: Sendable {
        public var type: FHIRBundleWriter.BundleType
        public var subject: FHIRSubject
        public var glucoseUnit: VitalUnit
        public var timeZone: TimeZone

        /// The export's settings.
        public init(
            type: FHIRBundleWriter.BundleType, subject: FHIRSubject, glucoseUnit: VitalUnit, timeZone: TimeZone
        ) {
            (self.type, self.subject, self.glucoseUnit, self.timeZone) = (type, subject, glucoseUnit, timeZone)
        }
    }

    /// Writes the FHIR bundle of the released readings (of one device, from a time on) to `output`, a reading at a
    /// time, and flushes it; a closed output ends the bundle without an error.
    ///
    /// The devices and the readings are one snapshot: a device another process adds with a reading meanwhile is in
    /// both or in neither, so every reading's device is in the bundle.
    public func writeFHIRBundle(
        _ export: FHIRExport, device: MACAddress?, since: Timestamp?, to output: inout ChunkedOutput
    ) throws {
        let hub = try store.hubID()
        var writer: FHIRBundleWriter?
        do {
            try store.readings.forEach(device: device, since: since, selection: .released) { devices in
                var bundle = try FHIRBundleWriter(
                    type: export.type, subject: export.subject, hub: hub, glucoseUnit: export.glucoseUnit,
                    devices: devices.map {
                        FHIRDevice(
                            mac: $0.mac, model: $0.model, serialNumber: $0.serialNumber,
                            firmwareRevision: $0.firmwareRevision)
                    }, utcOffset: { export.timeZone.secondsFromGMT(for: $0.date) })
                try output.append { bundle.begin(into: &$0) }
                writer = bundle
            } _: { stored in
                try output.append { writer?.append(stored.reading, device: stored.device, to: &$0) }
            }
            try output.append { writer?.finish(into: &$0) }
            try output.flush()
        } catch  where output.closed {
            // a closed pipe ends the bundle
        }
    }

    /// The report of the released readings (of one device, from a time on) in `units`, its times in `timeZone`,
    /// made at `now`: what ``ReportPage/write(title:to:)`` writes.
    ///
    /// The devices and the readings are one snapshot: every reading's device has its name.
    public func report(
        units: ReportUnits, timeZone zone: TimeZone, device mac: MACAddress?, since from: Timestamp?,
        now: Timestamp = Timestamp(Date())
    ) throws -> ReportPage {
        var names: [MACAddress: String] = [:]
        var report = HealthReport(units: units, utcOffset: { zone.secondsFromGMT(for: $0.date) })
        try store.readings.forEach(device: mac, since: from, selection: .released) { devices in
            names = Dictionary(devices.map { ($0.mac, "\($0.model.name) \($0.mac)") }, uniquingKeysWith: { $1 })
        } _: { stored in
            report.add(stored.reading, device: names[stored.device] ?? stored.device.description)
        }
        var scope = mac.map { "Readings of \(names[$0] ?? $0.description)" } ?? "Readings of every device"
        if let from { scope += " since \(from) UTC" }
        let local = Timestamp(secondsSince1970: now.secondsSince1970 + Int64(zone.secondsFromGMT(for: now.date)))
        return ReportPage(
            report: report, subtitle: "\(scope); times in \(zone.identifier); made \(local.description.prefix(16)).")
    }
}

/// A report made by ``Hub/report(units:timeZone:device:since:now:)``, to write.
public struct ReportPage {
    /// The readings' charts and tables.
    public var report: HealthReport
    /// What the readings are and when the report was made, under the title.
    public var subtitle: String

    /// Writes the page to `descriptor` as it is made, 64 KiB at a time, never held whole (about 1.8 MB for 26 years
    /// of readings); `false` if the descriptor stopped taking bytes.
    public func write(title: String, to descriptor: Int32) -> Bool {
        let size = 1 << 16
        var buffer: [UInt8] = []
        buffer.reserveCapacity(size + 4096)
        var written = true
        report.write(title: title, subtitle: subtitle) { part in
            guard written else { return }
            buffer.append(contentsOf: part.utf8)
            if buffer.count >= size {
                written = writeAll(buffer, to: descriptor)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        return written && writeAll(buffer, to: descriptor)
    }

    /// Writes the page to the file `path` as ``Home/writeFile(to:_:)`` does (mode 0600, replacing it atomically:
    /// a run killed before the rename leaves the previous report whole), first removing the temporary files an
    /// earlier run killed as it wrote left beside it.
    ///
    /// - Throws: ``HomeError`` naming the file and why it cannot be written.
    public func write(title: String, toFile path: String) throws(HomeError) {
        let (folder, name) = Home.folderAndName(of: path)
        Home.removeStaleTemporaryFiles(in: folder, of: name)
        try Home.writeFile(to: path) { write(title: title, to: $0) }
    }
}

extension RecordRow {
    /// The heart-rate minutes of a band's stored item, one row each with a value (a minute without one is not
    /// listed); none for an item that is not an hour of heart rate.
    ///
    /// - Throws: `GATTError` if the stored bytes are not a band item.
    static func heartRateMinutes(of item: DayItem, device: MACAddress) throws -> [RecordRow] {
        guard case .heartRate(let hour) = try BandItem(storedBytes: item.bytes) else { return [] }
        let start = hour.date.daysSince1970 * 86_400 + Int64(hour.hour) * 3_600
        return hour.minutes.enumerated().compactMap { minute, rate in
            rate.map {
                RecordRow(
                    device: device, kind: "heart_rate_minute",
                    time: Timestamp(secondsSince1970: start + Int64(minute) * 60),
                    values: [(.heartRate, .number(Double($0)))])
            }
        }
    }
}
