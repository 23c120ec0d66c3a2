import Foundation

/// A new empty folder under the system's temporary folder; the test removes it with ``remove()`` (in a `defer`: a
/// value's lifetime may end at its last use, so removal is not left to a deinitializer).
public struct TemporaryDirectory: Sendable {
    public let path: String

    /// A folder named `<prefix>-<UUID>`.
    public init(_ prefix: String) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    /// The path of `name` inside the folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Removes the folder and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
