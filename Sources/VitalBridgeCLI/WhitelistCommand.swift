import ArgumentParser
import Foundation
import LayeredProtocol
import VitalBridge
import VitalHome
import VitalStore

/// `vitalbridge whitelist list|add|remove`.
struct WhitelistCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whitelist",
        abstract: "Show and edit the callers the hub answers (AppWhiteList.plist).",
        subcommands: [List.self, Add.self, Remove.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the whitelisted callers.", discussion: "Example:\n  vitalbridge whitelist list")
        @OptionGroup var homeOptions: HomeOptions

        func run() throws {
            print(try openHub(homeOptions.home).whitelistTable())
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Whitelist a caller with its callback URL, or * for a dynamic callerurl.",
            discussion: """
                With --person, the caller receives that person's readings (of the user indexes assigned to them); \
                without, the readings of the home's one person when it has exactly one, and no person's otherwise. \
                Readings of single-user devices go to every caller, as always.

                Examples:
                  vitalbridge whitelist add com.example.app myapp://
                  vitalbridge whitelist add com.example.mum mumsapp:// --person Mum
                  vitalbridge whitelist add com.example.web '*'
                """
        )
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The caller's bundle or package id.") var caller: String
        @Argument(help: "Its callback URL (myapp://, a custom app scheme) or *.") var callback: String
        @Option(help: "The person whose readings the caller receives (vitalbridge people add).") var person: String?

        func run() throws {
            let hub = try openHub(homeOptions.home, create: true)
            do {
                try hub.whitelist(caller, callback: callback, person: person)
            } catch {
                throw CommandError("\(error)")
            }
            print("\(caller) → \(callback)" + (person.map { " (the readings of \($0))" } ?? ""))
            if callback == Whitelist.dynamic {
                // on standard error, as every warning: a script reading the output gets the entry alone
                printError(
                    """
                    warning: \(caller) may now name any custom app scheme as its callerurl, and whoever claims its app \
                    id (the hub cannot verify who opens a URL) receives its readings there
                    """)
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a caller from the whitelist.",
            discussion: "Example:\n  vitalbridge whitelist remove com.example.app")
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The caller's bundle or package id.") var caller: String

        func run() throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            do {
                try hub.removeFromWhitelist(caller)
            } catch {
                throw CommandError("\(error)")
            }
            print("removed \(caller)")
        }
    }
}
