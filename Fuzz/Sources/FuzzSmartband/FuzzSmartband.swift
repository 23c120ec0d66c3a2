import FuzzCheck
import HealthGATT
import VitalCore
import VitalDevices

// The vendor codecs of devices without a SIG profile: the smartband's data notifications, control-point writes and
// clock, an item moved by a clock's offset, and the activity monitors' vendor commands, events and day records. The first byte picks the codec, the rest is
// the value. Properties: no decoder traps; every value decoded encodes to bytes that decode to the same value.

private let today = CalendarDate(daysSince1970: 20_000)

private let codecs: [@Sendable ([UInt8]) -> Void] = [
    { bytes in
        guard let message = try? BandMessage(bytes: bytes) else { return }
        // a band's date for today's totals is not read (the host dates them), so any date encodes the same value
        requireRoundTrip(
            message, "a band message", encode: { $0.encoded(today: today) },
            decode: { (bytes: [UInt8]) throws(GATTError) in try BandMessage(bytes: bytes) })
    },
    { bytes in
        guard let command = try? BandCommand(bytes: bytes) else { return }
        requireRoundTrip(command, "a band command", encode: \.encoded) { (bytes: [UInt8]) throws(GATTError) in
            try BandCommand(bytes: bytes)
        }
    },
    { bytes in
        guard let command = VendorCommand(bytes: bytes) else { return }
        requireRoundTrip(command, "a vendor command", encode: \.encoded, decode: optionalDecoder(VendorCommand.init))
    },
    { bytes in
        guard let event = VendorEvent(bytes: bytes) else { return }
        requireRoundTrip(event, "a vendor event", encode: \.encoded, decode: optionalDecoder(VendorEvent.init))
    },
    { bytes in
        guard let record = ActivityDayRecord(bytes: bytes) else { return }
        requireRoundTrip(
            record, "an activity day record", encode: \.encoded, decode: optionalDecoder(ActivityDayRecord.init))
    },
    { bytes in
        guard let time = try? BandTime(bytes: bytes) else { return }
        requireRoundTrip(time, "a band time", encode: \.encoded) { (bytes: [UInt8]) throws(GATTError) in
            try BandTime(bytes: bytes)
        }
    },
    { bytes in
        // an offset in minutes (i32), then an item: moved by it, it is still an item the codec writes and reads
        guard bytes.count > 4, case .item(let sequence, let item)? = try? BandMessage(bytes: Array(bytes.dropFirst(4)))
        else { return }
        let minutes = Int(Int32(bitPattern: bytes.prefix(4).reversed().reduce(0) { $0 << 8 | UInt32($1) }))
        requireRoundTrip(
            BandMessage.item(sequence: sequence, item.movedBack(byMinutes: minutes)), "a moved band item",
            encode: { $0.encoded(today: today) },
            decode: { (bytes: [UInt8]) throws(GATTError) in try BandMessage(bytes: bytes) })
    },
]

/// A decoder that returns `nil` for bytes it refuses, as one that throws.
private func optionalDecoder<Value>(_ decode: @escaping @Sendable ([UInt8]) -> Value?) -> ([UInt8]) throws(Refused) ->
    Value
{
    { bytes throws(Refused) in
        guard let value = decode(bytes) else { throw Refused() }
        return value
    }
}

private struct Refused: Error {}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSmartband(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    dispatch(fuzzInput(data, size), to: codecs)
    return 0
}
