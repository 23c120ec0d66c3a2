import ArgumentParser
import LayeredClient
import LayeredProtocol

struct ComposeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Print a request URL, built and checked by the caller's client (LayeredClient).",
        discussion: """
            The request carries a correlation id, requestid, which the hub's callback repeats (a random one unless \
            --requestid gives it). A request the hub would refuse is not printed: one line on stderr names the \
            parameter at fault and the reason the hub would answer, and the command exits 1.

            Examples:
              vitalbridge compose --cmd 0 --model BP5 --mac 004D3208D2F4 --unit 2 --scheme myapp
              vitalbridge compose --cmd 1 --model 400 --addtype 1 --callerurl 'myapp://readings' --requestid r-7
              vitalbridge compose --cmd 2 --model AM4 --mac 004D3208D306 --unit 10 --profile 1111,30,1,180,80,1 \\
                --scheme myapp
            """)

    @OptionGroup var options: PlatformOptions
    @Option(help: "The action, 0–6.") var cmd: Int
    @Option(help: "The device model: its number (100) or its name (BP5).") var model: String
    @Option(help: "The device's MAC, for the actions that measure or sync a known device.") var mac: String?
    @Option(help: "How an action that adds a device finds it: 0 scan (the default), 1 QR code.") var addtype: Int?
    @Option(help: "0 to connect without a prompt, 1 to prompt first.") var popflag: Int?
    @Option(help: "The unit of the results (the scheme article lists them).") var unit: Int?
    @Option(help: "An activity monitor's profile: USERID,AGE,SEX,HEIGHT,WEIGHT,SWIM.") var profile: String?
    @Option(help: "A BG5 measurement's strip code.") var code: String?
    @Option(help: "The strip code's type: 0 the vial's QR code (the default), 1 another.") var codetype: Int?
    @Option(help: "A sync returns readings from this time on, yyyy-MM-dd HH:mm:ss (UTC).") var since: String?
    @Option(help: "The caller's URL scheme, for the callback.") var scheme: String?
    @Option(help: "A whole callback URL instead of --scheme (whitelisted callers only).") var callerurl: String?
    @Option(help: "The caller's application id (required on Android).") var appid: String?
    @Option(help: "The correlation id; random when absent.") var requestid: String?

    func validate() throws {
        guard (scheme == nil) != (callerurl == nil) else {
            throw ValidationError("give exactly one of --scheme and --callerurl")
        }
    }

    func run() throws {
        let intent: LayeredIntent
        do {
            intent = try LayeredIntent(
                cmd: cmd, model: model, mac: mac, addType: addtype, popFlag: popflag, unit: unit, profile: profile,
                stripCode: code, codeType: codetype, since: since)
        } catch {
            // the fields are the options: --cmd, --model, …
            throw CommandError("cannot compose: --\(error.field) \(error.reason)")
        }
        let client = LayeredClient(
            callback: scheme.map(CallbackDestination.scheme) ?? .callerURL(callerurl ?? ""),
            platform: options.platform, appID: appid)
        do {
            print(try client.url(for: intent, requestID: requestid ?? LayeredClient.newRequestID()))
        } catch {
            throw CommandError("cannot compose: \(error); the hub would answer \(error.reason)")
        }
    }
}
