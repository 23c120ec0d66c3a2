import FuzzCheck
import VitalCore

// A change-feed cursor, `HUB:SEQUENCE`, as a consumer passes it to `changes --after` or keeps it between pushes.
// Properties: the reader never traps; what it accepts writes back (its description) to text that reads as the same
// cursor; an accepted cursor's hub is a lowercase UUID and its sequence is not negative; a cursor written without
// leading zeros is its own description.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFeedCursor(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = fuzzText(fuzzInput(data, size))
    guard let cursor = FeedCursor(text) else { return 0 }
    require(cursor.sequence >= 0, "a cursor has a negative sequence: \(cursor.sequence)")
    require(cursor.hubID.utf8.count == 36, "a cursor's hub is not a UUID: \(cursor.hubID)")
    require(
        cursor.hubID.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte) || (0x61...0x66).contains(byte)
        }, "a cursor's hub is not a lowercase UUID: \(cursor.hubID)")
    requireRoundTrip(cursor, "a feed cursor", encode: \.description) { (text: String) throws(CursorRefused) in
        guard let again = FeedCursor(text) else { throw CursorRefused() }
        return again
    }
    let digits = text.utf8.dropFirst(37)
    if digits.first != UInt8(ascii: "0") || digits.count == 1 {
        require(cursor.description == text, "a canonical cursor \(text) writes back as \(cursor)")
    }
    return 0
}

/// `FeedCursor.init?` refuses with `nil`; the round trip needs an error.
struct CursorRefused: Error {}
