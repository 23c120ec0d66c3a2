import HealthGATT
import VitalCore

// The smartband codec's state, schedule-info and sport-name messages (the rest is in SmartbandGATT.swift).

extension BandMessage {
    /// The bytes of a state, schedule-info or sport-name message.
    var stateEncoded: [UInt8] {
        var writer = BandWriter()
        switch self {
        case .status(let status):
            writer.u8(0x16)
            writer.flag(status.boundUserID != nil)
            writer.u32(Int(status.boundUserID ?? 0))
            writer.flag(status.sportData)
            writer.flag(status.hourlyHeartRate)
            writer.flag(status.cameraMode)
        case .scheduleInfo(let maximumPerDay, let count):
            writer.u8(0x17)
            writer.u8(maximumPerDay)
            writer.u16(count)
        case .scheduleSlot(let slot):
            writer.u8(0x18)
            writer.date(slot.date)
            writer.u8(slot.minute / 60)
            writer.u8(slot.minute % 60)
        case .sportName(let name):
            writer.u8(0x19)
            writer.u8(Int(name.sport.rawValue))
            writer.text(name.name)
            writer.text(name.unit)
        default: break
        }
        return writer.bytes
    }

    /// Decodes the body of a message `16`–`19`.
    static func stateMessage(_ type: Int, _ reader: inout ByteReader) throws(GATTError) -> BandMessage {
        switch type {
        case 0x16:
            let bound = try reader.flag("bound")
            let userOffset = reader.offset
            let user = UInt32(try reader.u32("userID"))
            guard bound == (user != 0) else { throw reader.error(.invalidValue, "userID", at: userOffset) }
            return .status(
                BandStatus(
                    boundUserID: bound ? user : nil, sportData: try reader.flag("sportData"),
                    hourlyHeartRate: try reader.flag("hourlyHeartRate"), cameraMode: try reader.flag("cameraMode")))
        case 0x17:
            return .scheduleInfo(maximumPerDay: try reader.u8("maximumPerDay"), count: try reader.u16("count"))
        case 0x18:
            let date = try reader.date("date")
            let timeOffset = reader.offset
            let (hour, minute) = (try reader.u8("hour"), try reader.u8("minute"))
            guard hour < 24, minute < 60 else { throw reader.error(.invalidValue, "hour", at: timeOffset) }
            return .scheduleSlot(BandScheduleSlot(date: date, minute: hour * 60 + minute))
        default:
            let sport = BandSport(rawValue: UInt8(try reader.u8("sport")))
            return .sportName(BandSportName(sport: sport, name: try reader.text("name"), unit: try reader.text("unit")))
        }
    }
}
