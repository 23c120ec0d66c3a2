import ArgumentParser
import Foundation
import LayeredProtocol
import VitalBridge
import VitalCore
import VitalDevices
import VitalHome
import VitalStore

/// `vitalbridge add`: adds a device by its QR code, or the paired one a scan finds.
struct AddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a device to the hub by its QR code (--qr) or by scanning for its model (--model).",
        discussion: """
            The device's serial number and firmware are read; its records stay on it for sync or serve to read. \
            A QR code is MAC, ID:MAC or MODEL:MAC (the forms a layered request's addtype=1 accepts); one that \
            names no model needs --model. A scan adds the paired device of the model in range; with several, a \
            person at the terminal chooses. An activity monitor is bound to a user profile: add it with a layered \
            request that carries one.

            Examples:
              vitalbridge add --qr BP5:004D3208D2F4
              vitalbridge add --model BPS
            """)

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var transportOptions: TransportOptions
    @Option(help: "The device's QR code text: MAC, ID:MAC or MODEL:MAC.") var qr: String?
    @Option(
        help: "The model: its name (BP5, BPS, …) or devicemodel number (100, 900, …).",
        transform: reading(DeviceModel.init(nameOrNumber:)) {
            "--model: '\($0)' is not a model of the catalog (vitalbridge scan lists them)"
        })
    var model: DeviceModel?

    func run() async throws {
        var mac: MACAddress?
        var model = model
        if let qr {
            do {
                let code = try DeviceQRCode(parsing: qr, requestedModel: model)
                (mac, model) = (code.mac, model ?? code.model)
            } catch {
                throw CommandError("--qr: \(error.message)", status: .usage)
            }
        }
        guard let model else {
            throw CommandError(
                qr == nil ? "give --qr or --model" : "the QR code names no model: give --model", status: .usage)
        }
        let hub = try openHub(homeOptions.home, readOnly: false, transport: transportOptions.choice)
        let desk = hub.desk()
        let user: any HubUser =
            TerminalUser.isAttached
            ? TerminalUser(interrupt: Interrupt.watch(), report: printError) : hub.unattendedUser
        do {
            let added = try await desk.add(model, mac: mac, user: user)
            print("added \(added.mac) (\(model.name)), serial \(added.serialNumber ?? "not reported")")
        } catch {
            throw CommandError(error.message)
        }
    }
}

/// `vitalbridge measure`: a measurement with one device of the hub.
struct MeasureCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure",
        abstract: "Take a measurement with a device of the hub, store it and show it.",
        discussion: """
            The same measurement a layered request (cmd 0) takes, under the device's lease: stored, and queued for \
            every app that asked for the device. A BG5 needs the strip's code (--code).

            Examples:
              vitalbridge measure --mac 004D3208D2F4
              vitalbridge measure --mac 004D3208D308 --code QR-1234
            """)

    @OptionGroup var device: DeviceOptions
    @Option(help: "A BG5 strip's code, as its vial's QR code gives it.") var code: String?

    func run() async throws {
        let desk = try device.desk(readOnly: false)
        let record = try await device.refusing { () throws(DeviceDeskError) in
            try await desk.measure(device.address, stripCode: code.map { StripCode(type: .qrCode, code: $0) })
        }
        print(record.reading.resultObject(unit: nil).json)
    }
}

/// `vitalbridge sync`: reads what a device holds, or every device, without a caller's request.
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Read and store what a device holds (--mac), or every device of the hub (--all).",
        discussion: """
            The same sync a layered request (cmd 2) runs, under the device's lease: its clock read first, its \
            records after the last one kept stored and queued for every app that asked for the device. On a \
            terminal a progress line shows the records stored of the count the device announced. A device that \
            keeps no records (a heart-rate sensor) is skipped by --all; one that fails does not stop the others, \
            and the command then exits 1.

            Examples:
              vitalbridge sync --mac 004D3208D2F4
              vitalbridge sync --all
            """)

    @OptionGroup var homeOptions: HomeOptions
    @OptionGroup var transportOptions: TransportOptions
    @Option(help: "The device's MAC address (12 hexadecimal digits).", transform: MACArgument.parse("--mac"))
    var mac: MACAddress?
    @Flag(help: "Every device of the hub.") var all = false

    func validate() throws {
        guard (mac == nil) != !all else { throw ValidationError("give either --mac or --all") }
    }

    func run() async throws {
        let desk = try openHub(homeOptions.home, readOnly: false, transport: transportOptions.choice).desk()
        let onTerminal = isatty(2) == 1
        let draw: @Sendable (SyncProgress) -> Void = { if onTerminal { drawProgress($0) } }
        if let mac {
            let sync: DeviceSync
            do {
                sync = try await desk.sync(mac, progress: draw)
            } catch {
                throw CommandError(error.message)
            }
            print("\(mac): \(sync)")
            if !sync.refusals.isEmpty { throw CommandError(sync.refusals.map(\.description).joined(separator: "\n")) }
            return
        }
        let outcomes: [DeviceSyncOutcome]
        do {
            outcomes = try await desk.syncAll { _, progress in draw(progress) }
        } catch {
            throw CommandError(error.message)
        }
        for outcome in outcomes {
            switch outcome.result {
            case .success(let sync): print("\(outcome.mac): \(sync)")
            case .failure(let error): print("\(outcome.mac): \(outcome.isSkipped ? "skipped" : "failed"): \(error)")
            }
        }
        // a device that refused an enrolled person failed: the refusals say what to do
        let refusals = outcomes.flatMap { (try? $0.result.get())?.refusals ?? [] }.map { "\($0)\n" }.joined()
        let failed = outcomes.filter { !$0.isSkipped && (try? $0.result.get())?.refusals.isEmpty != true }.count
        if outcomes.isEmpty { print("no devices yet: add one first (vitalbridge add --qr MODEL:MAC)") }
        if failed > 0 { throw CommandError("\(refusals)\(failed) of \(outcomes.count) devices failed") }
    }
}
