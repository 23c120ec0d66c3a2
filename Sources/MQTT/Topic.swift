/// The rules of topic names and topic filters (MQTT 3.1.1, section 4.7).
///
/// ```swift
/// try Topic.checkName("sport/tennis/player1")         // a name: no wildcard
/// try Topic.checkFilter("sport/tennis/+/#")           // a filter: + a whole level, # the last
/// try Topic.checkName("sport/+")                      // throws: a name has no wildcard
/// try Topic.checkFilter("sport/tennis#")              // throws: # must be a level of its own
/// ```
public enum Topic {
    /// The longest topic, in UTF-8 bytes: a string's two-byte length.
    public static let maximumLength = 65_535

    /// Checks that `name` may be a PUBLISH's or a will's topic: 1–65,535 bytes of UTF-8, no U+0000, no `+` or `#`.
    public static func checkName(_ name: String) throws(MQTTError) { try checkName(name, subject: "a topic name") }

    /// ``checkName(_:)`` with the messages beginning with `subject` (`a PUBLISH's topic name`).
    static func checkName(_ name: String, subject: String) throws(MQTTError) {
        try checkCommon(name, subject)
        if let wildcard = name.utf8.first(where: { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }) {
            throw MQTTError(
                .topic, "\(subject) may not hold the wildcard \(Character(Unicode.Scalar(wildcard))): only a filter")
        }
    }

    /// Checks that `filter` may be a SUBSCRIBE's or an UNSUBSCRIBE's filter: 1–65,535 bytes of UTF-8, no U+0000,
    /// `+` only as a whole level, `#` only as the last level.
    public static func checkFilter(_ filter: String) throws(MQTTError) {
        try checkFilter(filter, subject: "a topic filter")
    }

    /// ``checkFilter(_:)`` with the messages beginning with `subject` (`a SUBSCRIBE's topic filter`).
    static func checkFilter(_ filter: String, subject: String) throws(MQTTError) {
        try checkCommon(filter, subject)
        let levels = filter.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        for (index, level) in levels.enumerated() {
            if level.contains(UInt8(ascii: "#")) && (level.count != 1 || index != levels.count - 1) {
                throw MQTTError(.topic, "\(subject)'s # must be the whole of its last level")
            }
            if level.contains(UInt8(ascii: "+")) && level.count != 1 {
                throw MQTTError(.topic, "\(subject)'s + must be the whole of its level")
            }
        }
    }

    private static func checkCommon(_ topic: String, _ subject: String) throws(MQTTError) {
        guard !topic.isEmpty else { throw MQTTError(.topic, "\(subject) is at least one character long") }
        guard topic.utf8.count <= maximumLength else {
            throw MQTTError(.topic, "\(subject) is at most \(maximumLength) bytes long: this is \(topic.utf8.count)")
        }
        guard !topic.utf8.contains(0) else { throw MQTTError(.topic, "\(subject) may not hold U+0000") }
    }
}
