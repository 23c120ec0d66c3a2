import VitalCore
import VitalDevices

// A smartband's saved state and its schedules in the world's saved state (the rest is in FleetJSON.swift).

extension BandState {
    /// A band's saved state, without its items (``DeviceState/init(json:)`` reads them from the lines after the
    /// records), and how many items follow.
    static func saved(fields: JSONFields) throws(FleetError) -> (state: BandState, itemCount: Int) {
        var fields = fields
        guard let count = try fields.int("itemCount"), count >= 0 else {
            throw FleetError(path: fields.path(of: "itemCount"), message: "is required, at least 0")
        }
        guard let next = try fields.uint64("nextSequence"), let nextSequence = UInt32(exactly: next), next >= 1 else {
            throw FleetError(path: fields.path(of: "nextSequence"), message: "is required, from 1 to 4294967295")
        }
        guard let text = try fields.string("recordedThrough"), let through = Timestamp(parsing: text) else {
            throw FleetError(path: fields.path(of: "recordedThrough"), message: "is required, yyyy-MM-dd HH:mm:ss")
        }
        let bound = try fields.uint64("boundUserID")
        guard bound.map({ UInt32(exactly: $0) != nil }) ?? true else {
            throw FleetError(path: fields.path(of: "boundUserID"), message: "is not a 32-bit user id")
        }
        let schedules = try fields.objects("schedules", BandSchedule.init(fields:)) ?? []
        // a state saved before bands had a clock of their own has none: the band's clock was the world's
        let clockOffset = try fields.int("clockOffset") ?? 0
        guard clockOffset.magnitude <= 100 * 366 * 86_400 else {
            throw FleetError(path: fields.path(of: "clockOffset"), message: "is more than a hundred years")
        }
        var state = BandState(
            nextSequence: nextSequence, recordedThrough: through, sportData: try fields.bool("sportData") ?? false,
            hourlyHeartRate: try fields.bool("hourlyHeartRate") ?? false,
            cameraMode: try fields.bool("cameraMode") ?? false, boundUserID: bound.map { UInt32($0) },
            schedules: schedules, clockOffset: Int64(clockOffset))
        state.settings = try fields.object("settings", BandSettings.init(fields:)) ?? BandSettings()
        try fields.finish()
        return (state, count)
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["itemCount"] = .number(pending.count)
        members["nextSequence"] = .number(Int(nextSequence))
        members["recordedThrough"] = .string(recordedThrough.description)
        members["sportData"] = .bool(sportData)
        members["hourlyHeartRate"] = .bool(hourlyHeartRate)
        members["cameraMode"] = .bool(cameraMode)
        members["boundUserID"] = boundUserID.map { .number(Int($0)) }
        members["schedules"] = schedules.isEmpty ? nil : .array(schedules.map(\.jsonValue))
        members["clockOffset"] = clockOffset == 0 ? nil : .number(Int(clockOffset))
        members["settings"] = settings.jsonValue
        return members.object
    }

    /// A saved item: its notification's bytes in hexadecimal.
    static func hex(_ item: Numbered) -> String { hex(item.message) }

    /// `bytes` in hexadecimal, lower case.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The item saved on `line` (a JSON string of ``hex(_:)``).
    static func item(line: [UInt8], at path: String) throws(FleetError) -> Numbered {
        guard case .string(let text)? = try? JSON.parse(line) else {
            throw FleetError(path: path, message: "is not a JSON string")
        }
        guard let bytes = bytes(hex: text) else { throw FleetError(path: path, message: "is not hexadecimal") }
        guard let item = Numbered(message: bytes) else { throw FleetError(path: path, message: "is not a band item") }
        return item
    }

    /// The bytes of `text`, hexadecimal digits two a byte; `nil` for anything else.
    static func bytes(hex text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var high: UInt8?
        for character in text.utf8 {
            guard let nibble = UInt8(String(UnicodeScalar(character)), radix: 16) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return high == nil ? bytes : nil
    }
}

extension BandSchedule {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let text = try fields.string("date"), let date = CalendarDate(parsing: text) else {
            throw FleetError(path: fields.path(of: "date"), message: "is required, yyyy-MM-dd")
        }
        guard let hour = try fields.int("hour"), let minute = try fields.int("minute"),
            let title = try fields.string("title")
        else { throw fields.missing("hour, minute and title") }
        do {
            try self.init(
                date: date, hour: hour, minute: minute, title: title, subtitle: try fields.string("subtitle") ?? "")
        } catch {
            throw FleetError(path: fields.path, message: "is not a schedule: \(error)")
        }
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["date"] = .string(date.description)
        members["hour"] = .number(hour)
        members["minute"] = .number(minute)
        members["title"] = .string(title)
        members["subtitle"] = .string(subtitle)
        return members.object
    }
}
