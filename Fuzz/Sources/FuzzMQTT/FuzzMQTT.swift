import FuzzCheck
import MQTT

// MQTT 3.1.1 packets as a broker sends them to the hub's sink: a stream of bytes, decoded packet after packet with
// a decoder limited as the sink's connection limits it.
// Properties: the decoder never traps; it takes at least one byte for a packet and never more than it was given; a
// packet it decodes encodes to bytes that decode to the same packet, as long as the packet's own encoding; a prefix
// of a packet's encoding is waited for (nil), never refused. The decoder reads the whole stream; the round trip and
// the prefixes are checked on its first `checkedPackets` packets only: any packet can come first, so none is out of
// reach, and a 4 KB stream of 2-byte packets no longer costs 2,000 round trips (3,300 executions a second, where 10
// million are asked for).

private let checkedPackets = 8

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMQTT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = fuzzInput(data, size)
    let decoder = PacketDecoder(maximumRemainingLength: 1 << 16)
    var rest = input[...]
    var decodedPackets = 0
    while true {
        let decoded: (packet: Packet, length: Int)?
        do {
            decoded = try decoder.decode(rest)
        } catch {
            require(!error.message.isEmpty, "a refusal says nothing")
            return 0
        }
        guard let (packet, length) = decoded else { return 0 }
        require(length >= 2 && length <= rest.count, "a packet took \(length) of \(rest.count) bytes")
        rest = rest.dropFirst(length)
        decodedPackets += 1
        guard decodedPackets <= checkedPackets else { continue }
        requireRoundTrip(
            packet, "an MQTT packet", encode: { try! $0.encoded() },
            decode: { (bytes: [UInt8]) throws(MQTTError) in try Packet(decoding: bytes) })
        let encoded = try! packet.encoded()
        for end in [0, 1, encoded.count / 2, encoded.count - 1] {
            let waited: Bool
            do {
                waited = try decoder.decode(encoded[..<end]) == nil
            } catch {
                waited = false
            }
            require(waited, "a prefix of \(end) bytes of a \(packet.name) was not waited for")
        }
    }
}
