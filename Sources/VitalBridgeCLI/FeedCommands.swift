import ArgumentParser
import Foundation
import VitalCore
import VitalHome
import VitalStore

/// `vitalbridge changes`: the change feed, as JSON lines.
struct ChangesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print the change feed: every reading stored, corrected or deleted, as JSON lines in commit order.",
        discussion: """
            Each line is one change: "cursor" (the place after it, HUB:SEQUENCE), "op" (insert, update or delete), \
            "hub" (the hub's identity) and "id" (the reading's identifier in the hub: with the hub, unique across \
            hubs), "version" (it grows with each change of the reading), "device", then for an insert or update \
            "person" (when a user index is assigned to one) and "reading" (as records --format json writes it), \
            and for a delete "reason". The feed holds the latest change of each reading: apply inserts and updates \
            as upserts and deletes as deletes, and you hold exactly the hub's readings.

            Resume with --after and the last cursor you applied: you get exactly what changed since, for the life \
            of the store (the feed never expires). A cursor of another home, or a malformed one, is refused. A \
            reading in quarantine enters the feed when its user index is assigned, and leaves it (a delete) when it \
            is unassigned.

            Examples:
              vitalbridge changes
              vitalbridge changes --after 2b1f6a54-9c1e-4c1a-8f51-0d6b9a3ec0de:1024 --limit 1000
            """)

    @OptionGroup var homeOptions: HomeOptions

    @Option(help: "The cursor of the last change you have (HUB:SEQUENCE); the whole feed when not given.")
    var after: String?

    @Option(help: "At most this many changes (1 or more); all of them when not given.")
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
    }

    func run() throws {
        let hub = try openHub(homeOptions.home)
        var cursor: FeedCursor?
        if let after {
            guard let given = FeedCursor(after) else {
                throw CommandError(
                    "--after \(after.debugDescription) is not a cursor: a cursor is HUB:SEQUENCE, as a line's \"cursor\" gives it"
                )
            }
            cursor = given
        }
        var output = ChunkedOutput()
        do {
            try hub.writeChanges(after: cursor, limit: limit ?? .max, to: &output)
        } catch let error as StoreError {
            throw CommandError(error.message)
        }
    }
}

extension RecordsCommand {
    /// `vitalbridge records delete`: a user removes an erroneous reading.
    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete an erroneous reading: it is never delivered nor exported again.",
            discussion: """
                The reading leaves every caller's queue, and the change feed and every sink receive its deletion \
                with your reason. Find its id with vitalbridge changes (the "id" of its line). The hub remembers the \
                deleted reading, so that its device sending it again does not bring it back.

                Example:
                  vitalbridge records delete --id 42 --reason 'cuff too loose'
                """)

        @OptionGroup var homeOptions: HomeOptions

        @Option(help: "The reading's id, as vitalbridge changes gives it.")
        var id: Int64

        @Option(help: "Why it is wrong (at most 200 characters); sinks keep it with the deletion.")
        var reason: String

        func run() throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            do {
                try hub.store.readings.delete(id, reason: reason, at: Timestamp(Date()))
            } catch {
                throw CommandError(error.message)
            }
            print("deleted reading \(id)")
        }
    }
}
