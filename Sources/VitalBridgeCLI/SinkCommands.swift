import ArgumentParser
import Foundation
import SinkSettings
import VitalBridge
import VitalHome
import VitalStore

/// `vitalbridge sink add|list|remove|status|push|follow`: the outbox to PostgreSQL and MQTT.
struct SinkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sink",
        abstract: "Push every reading, correction and deletion to PostgreSQL (exactly once) or MQTT (at least once).",
        discussion: """
            Every change is queued for every sink in the transaction that stores it; open never waits for a sink. \
            sink push sends what is queued, in batches of 1,000, each committed by the server together with how \
            far it has the hub's feed; a batch is never lost, and sending one again changes nothing: the database \
            is keyed by (hub, reading, version). A sink added to a home with readings receives all of them, then \
            follows. The hub makes and migrates its own schema, vitalbridge, in the database; many hubs may share \
            one database.

            An MQTT sink publishes each change, as vitalbridge changes prints it, on PREFIX/HUB/changes at QoS 1, \
            and moves its position in the home once the broker acknowledged every message before it: after a \
            crash a change may arrive twice (de-duplicate by id and version), never not at all. One process \
            publishes to a sink at a time.

            The password comes from --password-file (a file of mode 600 that you own; its first line), or from \
            libpq's password file (PGPASSFILE, else ~/.pgpass). It is never kept in the home, nor shown. Without \
            sslmode, a sink on another host requires TLS (sslmode=require), one on this host or a socket prefers \
            it; sslmode=verify-full also checks the server's certificate (sslrootcert=FILE) and name.

            Examples:
              vitalbridge sink add clinic 'postgresql://hub@db.example.org/health?sslmode=verify-full&sslrootcert=/etc/ssl/clinic.pem' --password-file ~/.config/vitalbridge/clinic.pw
              vitalbridge sink add local 'postgresql://me@%2Fvar%2Frun%2Fpostgresql/health'
              vitalbridge sink add ha mqtt://hub@localhost --password-file ~/.config/vitalbridge/mqtt.pw
              vitalbridge sink push
              vitalbridge sink status
              vitalbridge sink follow
            """,
        subcommands: [Add.self, List.self, Remove.self, Status.self, Push.self, Follow.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Add a PostgreSQL or MQTT sink: it receives the whole history at its first push.",
            discussion: """
                URL forms: postgresql://USER@HOST[:PORT]/DB, postgresql://USER@%2Fsocket%2Fdir/DB or \
                postgresql://USER@/DB?host=/socket/dir, each with ?sslmode=disable|allow|prefer|require|verify-ca|\
                verify-full and sslrootcert=FILE; mqtt://[USER@]HOST[:PORT][/PREFIX] (port 1883, PREFIX \
                vitalbridge) or mqtts:// (port 8883, the certificate checked; cafile=FILE), with discovery=PREFIX \
                (homeassistant); mqtt:// to another host than this one needs cleartext=allow. A password in the URL \
                is refused.

                Examples:
                  vitalbridge sink add clinic postgresql://hub@db.example.org/health --password-file ~/clinic.pw
                  vitalbridge sink add ha 'mqtts://hub@broker.lan?cafile=/etc/ssl/lan-ca.pem' --password-file ~/mqtt.pw
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The sink's name: 1-32 letters, digits, - or _.") var name: String
        @Argument(help: "The database's or the broker's URL, without a password.") var url: String
        @Option(
            help:
                "A file whose first line is the password (mode 600, yours); else PGPASSFILE or ~/.pgpass (MQTT: none).")
        var passwordFile: String?

        func run() throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            let (address, queued): (String, Int)
            do {
                (address, queued) = try hub.addSink(named: name, url: url, passwordFile: passwordFile)
            } catch {
                throw CommandError("cannot add sink \(name): \(error)")
            }
            print(
                "added sink \(name): \(address) (\(queued) reading\(queued == 1 ? "" : "s") queued; vitalbridge sink push \(name))"
            )
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the sinks: name, address and where the password comes from.",
            discussion: "Example:\n  vitalbridge sink list")
        @OptionGroup var homeOptions: HomeOptions

        func run() throws {
            let hub = try openHub(homeOptions.home)
            print(try refusing("cannot list the sinks") { () throws(StoreError) in try hub.sinkListTable() })
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove",
            abstract: "Remove a sink; what its database received stays there, what it retained on a broker is cleared.",
            discussion: """
                An MQTT sink's Home Assistant sensors and states are cleared on the broker first, so Home Assistant \
                removes them; if the broker cannot be reached the sink is kept, unless --keep-retained.

                Examples:
                  vitalbridge sink remove clinic
                  vitalbridge sink remove ha --keep-retained
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The sink's name.") var name: String
        @Flag(help: "Leave what an MQTT sink retained on its broker as it is.") var keepRetained = false

        func run() async throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            do {
                try await hub.removeSink(named: name, keepRetained: keepRetained)
            } catch {
                throw CommandError("cannot remove sink \(name): \(error)")
            }
            print("removed sink \(name)")
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show each sink's queue, last success and last error, as of its last push.",
            discussion: """
                queued counts the readings with a change the sink had not committed at its last push.

                Examples:
                  vitalbridge sink status
                  vitalbridge sink status clinic
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "One sink's name; all of them when not given.") var name: String?

        func run() throws {
            let hub = try openHub(homeOptions.home)
            print(
                try refusing("cannot read the sinks") { () throws(StoreError) in try hub.sinkStatusTable(named: name) })
        }
    }

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "push",
            abstract: "Push everything queued to each sink (or one); exit 0 when every sink has it all.",
            discussion: """
                A sink that fails is named with why on standard error (exit 1); what it committed stays committed and \
                the rest stays queued for the next push.

                Examples:
                  vitalbridge sink push
                  vitalbridge sink push clinic
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "One sink's name; all of them when not given.") var name: String?
        @OptionGroup var batch: BatchOption

        func run() async throws {
            let hub = try openHub(homeOptions.home, readOnly: false)
            let chosen = try refusing("cannot push") { () throws(StoreError) -> [SinkRecord] in
                try hub.sinks(named: name)
            }
            let outbox = hub.outbox(batchSize: batch.batchSize)
            var failed = false
            for sink in chosen {
                do {
                    print(try await outbox.push(sink) { try await hub.connect(sink) }.line(sink: sink.name))
                } catch {
                    printError("cannot push to sink \(sink.name): \(error.message)")
                    failed = true
                }
            }
            if failed { throw CommandError(ending: .refused) }
        }
    }

    struct Follow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "follow",
            abstract: "Keep pushing to the sinks as readings arrive, until SIGINT or SIGTERM.",
            discussion: """
                Reads the feed's end every --poll seconds and pushes a sink whenever it lacks changes, over a \
                connection kept open. A sink that fails is tried again after 1 s, doubling to 60 s; the others go \
                on. The systemd user unit vitalbridge-sink.service runs it.

                Examples:
                  vitalbridge sink follow
                  vitalbridge sink follow clinic --poll 5
                """)
        @OptionGroup var homeOptions: HomeOptions
        @Argument(help: "The sinks to follow; all of them when none is given.") var names: [String] = []
        @Option(help: "Seconds between two reads of the feed's end (0.1 to 3600).") var poll: Double = 1
        @OptionGroup var batch: BatchOption

        func validate() throws {
            guard (0.1...3_600).contains(poll) else { throw ValidationError("--poll must be 0.1 to 3600 seconds") }
        }

        func run() async throws {
            let stop = SignalWatcher.watch([SIGINT, SIGTERM], secondEnds: false)
            let claim = try claimHome(homeOptions.home, for: .follower("sink follow"))
            let hub = try openHub(homeOptions.home, readOnly: false)
            let sinks: [SinkRecord]
            do {
                sinks = try hub.sinks(among: names)
            } catch {
                throw CommandError("cannot follow: \(error)")
            }
            let outbox = hub.outbox(batchSize: batch.batchSize)
            do {
                try await stop.cancelling {
                    try await outbox.follow(
                        sinks, connect: { try await hub.connect($0, longRunning: true) },
                        poll: .milliseconds(Int64(poll * 1_000))
                    ) { event in printLine(event.line) }
                }
            } catch {
                throw CommandError("stopped: \(error)")
            }
            withExtendedLifetime(claim) { printLine("stopped") }
        }
    }
}

/// How many changes a push sends in one transaction of the server.
struct BatchOption: ParsableArguments {
    @Option(help: "The changes sent in one transaction of the server (1 to 100000).")
    var batchSize = Outbox.defaultBatchSize

    func validate() throws {
        guard (1...100_000).contains(batchSize) else { throw ValidationError("--batch-size must be 1 to 100000") }
    }
}

/// Prints `line` and flushes standard output at once: `sink follow` runs for long, read line by line.
func printLine(_ line: String) {
    print(line)
    fflush(nil)
}
