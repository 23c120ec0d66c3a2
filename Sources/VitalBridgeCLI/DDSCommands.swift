import ArgumentParser
import Foundation
import VitalCore
import VitalHome
import WelltoryDDS

/// `vitalbridge dds …`: Welltory's Data Delivery Service links, and the sources VitalBridge answers as a provider.
struct DDSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dds",
        abstract: "Welltory DDS: build a measurement request link, decode a callback, manage the sources answered.",
        discussion: """
            Examples:
              vitalbridge dds request --source DemoApp --callback https://www.demoapp.com/dds/
              vitalbridge dds callback 'https://demoapp.com/dds/?stress=0.32&rmssd=90.3&stress_c=green'
              vitalbridge dds sources add DemoApp https://www.demoapp.com/dds/
            """,
        subcommands: [Request.self, Callback.self, Sources.self])

    struct Request: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "request",
            abstract: "Print a measurement request link: Welltory's direct link, its first-launch link, or another.",
            discussion: """
                Examples:
                  vitalbridge dds request --source DemoApp --callback https://www.demoapp.com/dds/
                  vitalbridge dds request --first --source DemoApp --callback https://www.demoapp.com/dds/ --extra visit=7
                  vitalbridge dds request --base vitalbridge://dds/measurement --source DemoApp --callback https://www.demoapp.com/dds/
                """)
        @Option(help: "The application's registered name.") var source: String
        @Option(help: "The application's registered callback URL.") var callback: String
        @Option(
            help: "NAME=VALUE, echoed back with the results; repeated.",
            transform: reading(
                DDSRequest.extra(parsing:),
                else: "--extra must be NAME=VALUE with a name other than source and callback"
            ))
        var extra: [(name: String, value: String)] = []
        @Flag(help: "The link for a user's first request (it installs Welltory when needed).") var first = false
        @Option(help: "Another provider's link, e.g. vitalbridge://dds/measurement.") var base: String?

        func validate() throws {
            guard !source.isEmpty, !callback.isEmpty else {
                throw ValidationError("--source and --callback are required")
            }
        }

        func run() throws {
            let request = DDSRequest(source: source, callback: callback, extra: extra)
            print(request.link(on: base ?? (first ? DDSRequest.firstLaunchLink : DDSRequest.directLink)))
        }
    }

    struct Callback: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "callback",
            abstract: "Decode a DDS callback URL: each score with its colour, RMSSD, SDNN, power, token and extras.",
            discussion: """
                A value out of range, or a callback that carries no result at all, is refused with one line naming
                the parameter or what is missing (exit 1). A token's meaning is its share page, the token
                percent-encoded.

                Example:
                  vitalbridge dds callback --format json 'https://demoapp.com/dds/?stress=0.32&energy=0.75&productivity=0.63&rmssd=90.3&sdnn=45.1&power=100&stress_c=green&productivity_c=red&energy_c=yellow'
                """)
        enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }
        @Option(help: "table or json.") var format: Format = .table
        @Argument(help: "The callback URL.") var url: String

        func run() throws {
            let result: DDSResult
            do {
                result = try DDSResult(callback: url)
            } catch {
                throw CommandError("invalid DDS callback: \(error)")
            }
            switch format {
            case .json: print(String(decoding: result.json.serialized(pretty: false), as: UTF8.self))
            case .table:
                print(
                    TextTable(
                        ["parameter", "value", "meaning"], result.parameters.map { [$0.name, $0.value, $0.meaning] }))
            }
        }
    }

    struct Sources: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sources",
            abstract: "The DDS sources VitalBridge answers, each with the one callback URL registered for it.",
            discussion: """
                A request gets a callback only when its source is here and its callback is exactly the URL
                registered (the document: source and callback verify the application). The table is
                dds-sources.json in the home, beside the layered whitelist.

                Examples:
                  vitalbridge dds sources add DemoApp https://www.demoapp.com/dds/
                  vitalbridge dds sources list
                  vitalbridge dds sources remove DemoApp
                """,
            subcommands: [Add.self, List.self, Remove.self])

        struct Add: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "add", abstract: "Register a source and its callback URL.")
            @OptionGroup var homeOptions: HomeOptions
            @Argument(help: "The source's name.") var source: String
            @Argument(help: "Its callback URL: https with a host, or a custom app scheme; its own query is kept.")
            var callback: String

            func run() throws {
                let hub = try openHub(homeOptions.home, create: true)
                do {
                    try DDSSources.update(in: hub.home) { try $0.set(callback, for: source) }
                } catch {
                    throw CommandError("\(error)")
                }
                print("\(source) → \(callback)")
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "list", abstract: "List the sources and their callback URLs.")
            @OptionGroup var homeOptions: HomeOptions

            func run() throws {
                let hub = try openHub(homeOptions.home)
                do {
                    print(try DDSSources.load(hub.home).table)
                } catch {
                    throw CommandError("\(error)")
                }
            }
        }

        struct Remove: ParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Stop answering a source.")
            @OptionGroup var homeOptions: HomeOptions
            @Argument(help: "The source's name.") var source: String

            func run() throws {
                let hub = try openHub(homeOptions.home)
                do {
                    try DDSSources.update(in: hub.home) { try $0.remove(source) }
                } catch {
                    throw CommandError("\(error)")
                }
                print("removed \(source)")
            }
        }
    }
}

/// `vitalbridge hrv`: the HRV figures of a series of RR intervals, as the DDS provider computes them.
struct HRVCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hrv",
        abstract: "Print RMSSD, SDNN, total power and stress index of RR intervals (ms), after the artefact rule.",
        discussion: """
            An interval outside 300–2000 ms, or differing by more than 20% from the previous accepted interval, is
            rejected; the figures are computed on the accepted ones: RMSSD, SDNN (n − 1) in ms, total power
            (VLF + LF + HF, 0.003–0.4 Hz, Welch on the series interpolated at 4 Hz) in ms², as hrv-analysis's
            defaults compute them, and Baevsky's stress index (AMo / (2 · Mo · MxDMn), 50 ms bins; at least 60
            intervals), behind the DDS provider's stress score. A figure the series is too short for is null.

            Examples:
              vitalbridge hrv --rr 812,790,805,830,799,815
              vitalbridge hrv --rr-file night.txt
            """)
    @Option(help: "Intervals in milliseconds, separated by commas.") var rr: String?
    @Option(help: "A file with one interval (ms) a line; blank lines are skipped.") var rrFile: String?

    func validate() throws {
        guard (rr == nil) != (rrFile == nil) else { throw ValidationError("give either --rr or --rr-file") }
    }

    func run() throws {
        var intervals: [Double] = []
        do {
            if let rr {
                intervals = try HRV.intervals(commaSeparated: rr, place: "--rr")
            } else if let rrFile {
                let bytes = try Home.readFile(rrFile, limit: 64 << 20)
                intervals = try HRV.intervals(lines: String(decoding: bytes, as: UTF8.self), file: rrFile)
            }
        } catch {
            throw CommandError("\(error)")
        }
        print(HRVFigures(rr: intervals).jsonLine)
    }
}
