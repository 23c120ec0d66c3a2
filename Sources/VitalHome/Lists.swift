import LayeredProtocol
import VitalCore
import VitalStore

/// What the home holds of its devices, people and callers, as `devices list`, `people list` and `whitelist list`
/// show it.
extension Hub {
    /// The devices the hub has added or talked to, a row each: MAC, model, serial number and firmware (empty when the
    /// device did not say), and when it was added (UTC). `nil` when there are none.
    public func deviceTable() throws(StoreError) -> TextTable? {
        let devices = try store.devices()
        guard !devices.isEmpty else { return nil }
        return TextTable(
            ["MAC", "model", "serial", "firmware", "added (UTC)"],
            devices.map {
                [$0.mac.description, $0.model.name, $0.serialNumber ?? "", $0.firmwareRevision ?? "", "\($0.addedAt)"]
            })
    }

    /// The home's people, a row each: name, date of birth, height, sex (empty when not given), the device users
    /// assigned to them, and the callers whose answers carry only their readings.
    public func peopleTable() throws(StoreError) -> TextTable {
        let people = try store.people.all()
        let callers = try store.people.callers()
        return TextTable(
            ["person", "born", "height", "sex", "users", "callers"],
            people.map { person in
                [
                    person.name, person.profile.born?.description ?? "",
                    person.profile.heightCentimetres.map { "\($0) cm" } ?? "", person.profile.sex?.rawValue ?? "",
                    person.assignments.map(\.description).joined(separator: " "),
                    callers.filter { $0.value == person.name }.keys.sorted().joined(separator: " "),
                ]
            })
    }

    /// The whitelisted callers by id, a row each: the caller and its callback, and the person whose readings it
    /// receives in a home whose callers name people (a home where none does has no person column).
    public func whitelistTable() throws(StoreError) -> TextTable {
        let people = try store.people.callers()
        let entries = whitelist.entries.sorted { $0.key < $1.key }
        guard !people.isEmpty else { return TextTable(["caller", "callback"], entries.map { [$0.key, $0.value] }) }
        return TextTable(["caller", "callback", "person"], entries.map { [$0.key, $0.value, people[$0.key] ?? ""] })
    }
}
