/// The three stages a request to a device is made of, in the order they run: add the device, sync its stored
/// records, take a measurement. The layered protocol's actions are made of them, and its callbacks report each.
public enum Stage: Int, CaseIterable, Hashable, Sendable {
    /// Find the device and add it to the hub.
    case add
    /// Read the records it stores.
    case sync
    /// Take a measurement now.
    case measure
}
