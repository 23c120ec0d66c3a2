import VitalCore
import VitalDevices

/// The simulated world, as a fleet file (JSON) scripts it: the devices, what each stores and will measure, the
/// failures to inject, radio timing, and what the user does.
public struct Fleet: Hashable, Sendable {
    /// The wall-clock time the world starts at (`yyyy-MM-dd HH:mm:ss`, UTC); the hub passes its own clock when
    /// absent.
    public var start: String?
    /// How many seconds of the world's time pass in a second of real time (1 to 1,000,000): a link waits, in real
    /// time, for the world's time its device's events take, divided by `pace`. Absent, nothing waits (the world's
    /// time moves at once), as every test wants; a soak sets it so that a smartband followed for minutes lives
    /// through days, not years.
    public var pace: Double?
    public var user: UserScript
    public var devices: [FleetDevice]

    public init(start: String? = nil, pace: Double? = nil, user: UserScript = UserScript(), devices: [FleetDevice]) {
        self.start = start
        self.pace = pace
        self.user = user
        self.devices = devices
    }

}

/// What the simulated user does.
public struct UserScript: Hashable, Sendable {
    /// The stage the user cancels (`add`, `sync` or `measure` in the fleet file).
    public var cancelAt: Stage?
    /// The user's answer to the connect prompt (`popflag=1`): `true` declines, `false` accepts; `nil`, the user
    /// is not there to answer it.
    public var declineConnect: Bool?
    /// The text the user's camera reads from a QR code; `nil`, the user is not there to show one.
    public var qrCode: String?
    /// The device the user picks when an add by scan finds several; `nil`, the user is not there to choose.
    public var chooseDevice: MACAddress?

    public init(
        cancelAt: Stage? = nil, declineConnect: Bool? = nil, qrCode: String? = nil, chooseDevice: MACAddress? = nil
    ) {
        self.cancelAt = cancelAt
        self.declineConnect = declineConnect
        self.qrCode = qrCode
        self.chooseDevice = chooseDevice
    }

}

/// One simulated device.
public struct FleetDevice: Hashable, Sendable {
    /// The catalog name, e.g. `BP5`, `KN550BT` or `THV3`.
    public var model: String
    /// 12 hexadecimal digits.
    public var mac: String
    public var serial: String?
    public var firmware: String?
    /// Percent, 0–100; 100 when absent.
    public var battery: Int?
    /// What the device does not have of `serial`, `firmware` (the Device Information Service's Serial Number and
    /// Firmware Revision strings) and `battery` (the Battery Service), as a generic device may lack them: it has
    /// all three when absent. A device lacking both strings has no Device Information Service.
    public var omits: [String]?
    /// Whether the phone has bonded with it (an add by scan finds only paired devices); `true` when absent, `false`
    /// when absent for a device with ``pairing``.
    public var paired: Bool?
    /// Whether it is in range (or plugged in); `true` when absent.
    public var inRange: Bool?
    /// When it is in range each day, as windows of the world's time (UTC): `[{"at": "07:00", "seconds": 60}]` is a
    /// scale seen for a minute each morning. In range all day when absent; not with `inRange` false.
    public var presence: [PresenceScript]?
    /// The records in its memory.
    public var records: RecordsScript?
    /// What the next live measurements return: the listed readings in order, then seeded ones.
    public var nextMeasurements: [SimulatedReading]?
    /// The seed of everything generated for this device; derived from the MAC when absent.
    public var seed: UInt64?
    public var failures: FailureScript?
    public var radio: RadioTiming?
    /// PO3 only: the user authentication result the device answers, 1–8 (2, login success, when absent).
    public var authenticationResult: Int?
    /// Smartbands only: when the band started recording, `yyyy-MM-dd HH:mm:ss` (UTC); a week before the world
    /// starts when absent. The band records as the world's time passes and holds what it recorded until a host
    /// acknowledges it.
    public var recordingSince: String?
    /// The generic weight scale (902) only: whether it has the Body Composition Service, and whether it indicates
    /// a reading's body composition `afterWeight` or `beforeWeight`; no such service when absent. (The HS4S sends
    /// its weight within its body composition.)
    public var bodyComposition: String?
    /// The generic pulse oximeter (904) only: `false` for one that measures only continuously, with neither
    /// spot-checks nor a memory (no Record Access Control Point); `true` when absent.
    public var spotCheck: Bool?
    /// A generic device other than the glucose meter (900, 902–904) only: `false` for one without a clock, whose
    /// readings carry no time stamp and which keeps no records; `true` when absent.
    public var clock: Bool?
    /// How the device pairs through the simulated BlueZ (`vitalbridge simulate --bus`): its method, passkey and
    /// whether it must be paired before it can be connected; absent, `Pair` needs no dialogue.
    public var pairing: PairingScript?
    /// Whether the first connection or pairing attempt through the simulated BlueZ fails with BlueZ's passing error
    /// `le-connection-abort-by-local` (the next one succeeds); `false` when absent.
    public var abortFirstConnection: Bool?
    /// How many seconds the device's clock runs ahead of the true time, negative when behind (at most ten years
    /// either way): every time the device reports (its Current Time, its records' time stamps) is shifted by it,
    /// while a record's `measuredAt` in the fleet stays the true time; a smartband dates what it records by it.
    /// 0 when absent. For devices that date their readings (not activity monitors, heart-rate sensors or a generic
    /// device without a clock).
    public var clockOffset: Int?
    /// Whether the device's clock restarted at 2000-01-01 00:00:00 at its first record (the earliest of its
    /// `records`; a smartband's when it began recording, `recordingSince`), as after a battery change: an offset of
    /// 2000-01-01 minus that time. Not with `clockOffset`; `false` when absent.
    public var clockReset: Bool?
    /// Whether the hub may set the device's clock by writing its Current Time (0x2A2B), for a device that serves
    /// one; `true` when absent. Set, the clock shows the time written, and readings taken from then are dated by it.
    /// The vendor set-time command of an iHealth model sets the clock either way.
    public var clockWritable: Bool?
    /// Smartbands only: the wearer's presses of the band's buttons, each at a time of the world. A band connected
    /// and following when the world's time passes a press notifies it (a take-picture only in camera mode); a press
    /// while nobody follows is lost, as on a real band.
    public var presses: [PressScript]?
    /// The PO3 only: how many samples the pulse wave of each of its history records that has one holds (two of
    /// every three records, by sequence number, have one), 0 for none; 18 when absent, the most that fit the
    /// default MTU of 23 (a wave is 2 bytes and its samples). A wave longer than the MTU allows is cut by the radio
    /// as a notification is, and the hub refuses it as truncated.
    public var waveSamples: Int?
    /// A generic blood pressure monitor (900) or weight scale (902) only: its User Data Service (0x181C), the users
    /// it keeps and how many it can keep; no such service when absent. A record whose `user` is a user index (not
    /// 255) then goes out only on a link consented as that user.
    public var userData: UserDataScript?
    /// `false` for a device that dates its readings by a Bluetooth SIG profile but serves no Current Time Service
    /// (0x1805), which the profiles leave optional: the hub cannot read its clock, so the records of its sessions keep
    /// the times it sent, marked `timeUnverified`. `true` when absent; only for a device that would serve one.
    public var currentTime: Bool?

    public init(
        model: String, mac: String, serial: String? = nil, firmware: String? = nil, battery: Int? = nil,
        omits: [String]? = nil, paired: Bool? = nil, inRange: Bool? = nil, records: RecordsScript? = nil,
        nextMeasurements: [SimulatedReading]? = nil, seed: UInt64? = nil, failures: FailureScript? = nil,
        radio: RadioTiming? = nil, authenticationResult: Int? = nil, recordingSince: String? = nil,
        bodyComposition: String? = nil, spotCheck: Bool? = nil, clock: Bool? = nil, pairing: PairingScript? = nil,
        abortFirstConnection: Bool? = nil, clockOffset: Int? = nil, clockReset: Bool? = nil,
        presses: [PressScript]? = nil, waveSamples: Int? = nil, presence: [PresenceScript]? = nil,
        clockWritable: Bool? = nil, userData: UserDataScript? = nil, currentTime: Bool? = nil
    ) {
        self.model = model
        self.mac = mac
        self.serial = serial
        self.firmware = firmware
        self.battery = battery
        self.omits = omits
        self.paired = paired
        self.inRange = inRange
        self.records = records
        self.nextMeasurements = nextMeasurements
        self.seed = seed
        self.failures = failures
        self.radio = radio
        self.authenticationResult = authenticationResult
        self.recordingSince = recordingSince
        self.bodyComposition = bodyComposition
        self.spotCheck = spotCheck
        self.clock = clock
        self.pairing = pairing
        self.abortFirstConnection = abortFirstConnection
        self.clockOffset = clockOffset
        self.clockReset = clockReset
        self.presses = presses
        self.waveSamples = waveSamples
        self.presence = presence
        self.clockWritable = clockWritable
        self.userData = userData
        self.currentTime = currentTime
    }
}

/// A device's User Data Service, as the fleet file writes it: `{"slots": 4, "users": [{"index": 1, "consent":
/// 1111}]}`.
public struct UserDataScript: Hashable, Sendable {
    /// How many users the device can keep, 1–255: user indexes 0 to `slots` − 1.
    public var slots: Int
    /// The users registered on the device; none when absent.
    public var users: [UserDataUserScript]?

    public init(slots: Int, users: [UserDataUserScript]? = nil) {
        self.slots = slots
        self.users = users
    }
}

/// A user registered on a device, as the fleet file writes it: `{"index": 1, "consent": 1111, "firstName": "Ann",
/// "born": "1980-05-17", "height": 168, "sex": "female", "changeIncrement": 3}`. What a user edited on the device
/// itself is written here: its values and the change increment it left.
public struct UserDataUserScript: Hashable, Sendable {
    /// The user index, below the device's `slots`, unique on the device.
    public var index: Int
    /// The consent code a host must give to act as the user, 0–9999.
    public var consent: Int
    /// The First Name; empty when absent.
    public var firstName: String?
    /// The date of birth, `yyyy-MM-dd`; unknown when absent.
    public var born: String?
    /// The height in centimetres, 1–65535; unknown when absent.
    public var height: Int?
    /// `female`, `male` or `unspecified` (the Gender); unspecified when absent.
    public var sex: String?
    /// The user's Database Change Increment, 0–4294967295; 0 when absent.
    public var changeIncrement: Int?

    public init(
        index: Int, consent: Int, firstName: String? = nil, born: String? = nil, height: Int? = nil,
        sex: String? = nil, changeIncrement: Int? = nil
    ) {
        self.index = index
        self.consent = consent
        self.firstName = firstName
        self.born = born
        self.height = height
        self.sex = sex
        self.changeIncrement = changeIncrement
    }
}

/// A daily window in which a device is in range, as the fleet file writes it: `{"at": "07:00", "seconds": 60}`, or
/// `{"at": "07:00", "seconds": 60, "connects": true}` for a bonded device that connects to the host by itself (after
/// a measurement) instead of advertising.
public struct PresenceScript: Hashable, Sendable {
    /// `HH:mm` or `HH:mm:ss` (UTC), when the window opens each day of the world.
    public var at: String
    /// How long it stays open, 1 to 86400 seconds (past midnight into the next day).
    public var seconds: Int
    /// Whether the device connects to the host by itself in the window rather than advertising.
    public var connects: Bool?

    public init(at: String, seconds: Int, connects: Bool? = nil) {
        self.at = at
        self.seconds = seconds
        self.connects = connects
    }
}

/// A press of a band's button, as the fleet file writes it: `{"at": "2026-11-20 13:00:00", "button":
/// "takePicture"}`; `button` is `takePicture` or `findPhone`.
public struct PressScript: Hashable, Sendable {
    /// `yyyy-MM-dd HH:mm:ss` (UTC), a time of the world.
    public var at: String
    public var button: String

    public init(at: String, button: String) {
        self.at = at
        self.button = button
    }
}

/// How a device pairs, as the fleet file writes it: `{"method": "passkey", "passkey": 123456}`.
public struct PairingScript: Hashable, Sendable {
    /// `justWorks`, `passkey` (the device shows a passkey the hub's user types), `display` (the hub shows a passkey
    /// the device's user types), `confirm` (both show a passkey, the hub's user confirms it) or `pinCode` (a legacy
    /// PIN the hub's user types).
    public var method: String
    /// The six-digit passkey of `passkey`, `display` and `confirm` (0–999999); derived from the device's seed
    /// when absent.
    public var passkey: Int?
    /// `display` only: what the device's user types on it; the passkey shown when absent.
    public var typed: Int?
    /// `pinCode` only: the device's PIN, 1–16 characters; `0000` when absent.
    public var pinCode: String?
    /// Whether the device refuses a connection until it is paired; `false` when absent.
    public var required: Bool?

    public init(
        method: String, passkey: Int? = nil, typed: Int? = nil, pinCode: String? = nil, required: Bool? = nil
    ) {
        self.method = method
        self.passkey = passkey
        self.typed = typed
        self.pinCode = pinCode
        self.required = required
    }
}

/// A device's memory: listed readings, or `count` readings generated from `seed` between `from` and `to`.
public struct RecordsScript: Hashable, Sendable {
    public var list: [SimulatedReading]?
    public var generate: GeneratedRecords?

    public init(list: [SimulatedReading]? = nil, generate: GeneratedRecords? = nil) {
        self.list = list
        self.generate = generate
    }
}

/// Readings generated deterministically.
public struct GeneratedRecords: Hashable, Sendable {
    public var count: Int
    public var seed: UInt64?
    /// `yyyy-MM-dd HH:mm:ss` (UTC); the readings are spread evenly from `from` to `to`.
    public var from: String
    public var to: String

    public init(count: Int, seed: UInt64? = nil, from: String, to: String) {
        self.count = count
        self.seed = seed
        self.from = from
        self.to = to
    }
}

/// Failures to inject; each happens once, then the device behaves again (the world's state remembers it).
public struct FailureScript: Hashable, Sendable {
    /// The connection attempt fails.
    public var atConnect: Bool?
    /// The device does not answer the connection attempt (it stopped advertising as the host paged it): the
    /// attempt times out (`DeviceError.Code.timedOut`; on SimulatedBlueZ, `Connect` is answered
    /// `org.bluez.Error.Failed: Page Timeout` after 20 s of real time, as the kernel's LE connection timeout ends it).
    public var connectUnanswered: Bool?
    /// The next live measurement ends with this device error code (e.g. BP 3, PO3 4).
    public var duringMeasurement: Int?
    /// A sync reports a device error after this many records.
    public var duringSync: SyncFailure?
    /// The link drops after this many records of a transfer.
    public var disconnectAfter: Int?
    /// Unlike the others, a rate that never runs out: the probability (0–0.5) that the link drops at each
    /// notification or indication the device sends, instead of sending it. Drawn from the device's seeded
    /// generator, which its saved state keeps, so a fleet's drops are the same on every run.
    public var linkDrops: Double?

    public init(
        atConnect: Bool? = nil, connectUnanswered: Bool? = nil, duringMeasurement: Int? = nil,
        duringSync: SyncFailure? = nil, disconnectAfter: Int? = nil, linkDrops: Double? = nil
    ) {
        self.atConnect = atConnect
        self.connectUnanswered = connectUnanswered
        self.duringMeasurement = duringMeasurement
        self.duringSync = duringSync
        self.disconnectAfter = disconnectAfter
        self.linkDrops = linkDrops
    }
}

/// A device error after `afterRecords` records of a sync.
public struct SyncFailure: Hashable, Sendable {
    public var afterRecords: Int
    public var code: Int

    public init(afterRecords: Int, code: Int) {
        self.afterRecords = afterRecords
        self.code = code
    }
}

/// Radio timing: off (the default) delivers everything at once; on, every `notificationsPerEvent` packets take one
/// connection interval of virtual time.
public struct RadioTiming: Hashable, Sendable {
    public var connectionIntervalMilliseconds: Double
    public var notificationsPerEvent: Int
    /// The ATT MTU; values longer than MTU − 3 bytes cannot be sent (23 when absent).
    public var mtu: Int?

    public init(connectionIntervalMilliseconds: Double, notificationsPerEvent: Int, mtu: Int? = nil) {
        self.connectionIntervalMilliseconds = connectionIntervalMilliseconds
        self.notificationsPerEvent = notificationsPerEvent
        self.mtu = mtu
    }
}

/// What a device can send of a scripted value: the device knowledge the reading descriptors leave out (a store
/// keeps whatever value it is given). It decides how the fleet file writes the value too: any number for a measured
/// quantity, a whole number for a count, `true` or `false` for a flag.
enum DeviceRule: Hashable, Sendable {
    /// A measured quantity from `range`, rounded to steps of 1 / `stepsPerUnit` (1: whole units, 10: tenths, 200:
    /// 0.005 kg).
    case measured(ClosedRange<Double>, stepsPerUnit: Double)
    /// A count from 0 to `max`, which every reading has.
    case count(max: Int)
    /// A whole number from `range`, or any.
    case whole(ClosedRange<Int>?)
    case flag

    /// The rule of every fleet key.
    static let byFleetKey: [String: DeviceRule] = [
        "systolic": .measured(40...300, stepsPerUnit: 1),
        "diastolic": .measured(20...250, stepsPerUnit: 1),
        "pulse": .measured(20...250, stepsPerUnit: 1),
        "arrhythmia": .flag,
        "glucose": .measured(10...600, stepsPerUnit: 1),
        "weight": .measured(1...300, stepsPerUnit: 200),
        "bodyFat": .measured(3...75, stepsPerUnit: 10),
        "temperature": .measured(30...45, stepsPerUnit: 10),
        "spo2": .measured(50...100, stepsPerUnit: 1),
        "pi": .measured(0...20, stepsPerUnit: 10),
        "steps": .count(max: Int(UInt32.max)),
        "calories": .count(max: 0xFFFE),
        "sleepMinutes": .count(max: 0xFFFE),
        "sleepEfficiency": .whole(0...100),
        "swimMinutes": .whole(nil),
        "swimCalories": .whole(nil),
    ]

    /// The rule of the fleet key `key`.
    static func of(_ key: String) -> DeviceRule {
        guard let rule = byFleetKey[key] else { preconditionFailure("\(key) is not a fleet key with a device rule") }
        return rule
    }

    /// `value` as the fleet file reads a value of this rule (a whole number where any number may be is that
    /// number); `nil` when it cannot be one.
    func kept(_ value: FieldValue) -> FieldValue? {
        switch (self, value) {
        case (.measured, .number), (.count, .integer), (.whole, .integer), (.flag, .flag): value
        case (.measured, .integer(let whole)): .number(Double(whole))
        default: nil
        }
    }
}

extension ReadingKind {
    /// The fleet keys of the kind's fields, in the kind's order.
    var fleetKeys: [String] { fields.compactMap(\.fleetKey) }
}

extension DeviceFamily {
    /// The script of the readings a fleet file gives the family's devices: their kind's fields with fleet keys;
    /// `nil` for smartbands (which record by themselves) and heart-rate sensors (which stream beats).
    var script: SimulatedReading.Script? {
        self == .smartband || self == .heartRateSensor ? nil : SimulatedReading.Script.of(traits.kind)
    }
}

/// A fleet file that does not describe a world, with the JSON path of the problem.
public struct FleetError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where, e.g. `devices[2].records.list[0].systolic`.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path) \(message)" }
}

extension Fleet {
    /// The built-in fleet: one device of each model, paired and in range, with fixed MACs and a few stored records
    /// each (for the models that keep records), spread over the day before 2026-11-20; the smartbands hold the
    /// week before the world starts. The generic weight scale has the Body Composition Service and a User Data
    /// Service of 4 slots keeping two users (``defaultScaleUsers``), each with two weights of their own on the scale
    /// besides its five generated ones: a hub that consents as neither never receives them.
    public static let `default`: Fleet = {
        let macs: [DeviceModel: String] = [
            .bp5: "004D3208D2F4", .bp3l: "004D3208D301", .bpTrack: "004D3208D302", .bp7s: "004D3208D303",
            .bp7: "004D3208D304", .am3s: "004D3208D305", .am4: "004D3208D306", .po3: "004D3208D307",
            .bg5: "004D3208D308", .bg1: "004D3208D309", .hs4: "004D3208D30A", .hs4s: "004D3208D30B",
            .hs2: "004D3208D30C", .thv3: "004D3208D30D", .fitPro9614N: "004D3208D310",
            .fitPulse9615N: "004D3208D311", .smarteeTraining9616N: "004D3208D312", .heartRateSensor: "004D3208D313",
            .bloodPressureMonitor: "004D3208D314", .glucoseMeter: "004D3208D315", .weightScale: "004D3208D316",
            .healthThermometer: "004D3208D317", .pulseOximeter: "004D3208D318",
        ]
        let devices = DeviceModel.allCases.map { model in
            let entry = DeviceCatalog.entry(for: model)
            return FleetDevice(
                model: model.name, mac: macs[model]!, serial: "\(model.name)-\(macs[model]!.suffix(4))",
                firmware: "1.0.0",
                battery: 90,
                // a smartband records by itself: a week before the world starts, unless the fleet says otherwise
                records: !entry.storesRecords || entry.family == .smartband
                    ? nil
                    : entry.family == .activityMonitor
                        ? RecordsScript(
                            generate: GeneratedRecords(count: 5, from: "2026-11-15 12:00:00", to: "2026-11-19 12:00:00")
                        )
                        : RecordsScript(
                            list: model == .weightScale ? defaultScaleUserRecords : nil,
                            generate: GeneratedRecords(count: 5, from: "2026-11-19 07:00:00", to: "2026-11-19 21:00:00")
                        ),
                bodyComposition: model == .weightScale ? BodyCompositionOrder.afterWeight.rawValue : nil,
                userData: model == .weightScale ? defaultScaleUsers : nil)
        }
        return Fleet(devices: devices)
    }()

    /// The users of the built-in fleet's generic weight scale (`004D3208D316`): Ann (index 1, consent code 1111)
    /// and Bob (index 2, consent code 2222), each with a change increment of 1.
    public static let defaultScaleUsers = UserDataScript(
        slots: 4,
        users: [
            UserDataUserScript(
                index: 1, consent: 1111, firstName: "Ann", born: "1980-05-17", height: 168, sex: "female",
                changeIncrement: 1),
            UserDataUserScript(
                index: 2, consent: 2222, firstName: "Bob", born: "1975-01-02", height: 181, sex: "male",
                changeIncrement: 1),
        ])

    /// The weights of the built-in scale's users on the scale, two each on 2026-11-19, listed before its generated
    /// records.
    static let defaultScaleUserRecords: [SimulatedReading] = [
        ("2026-11-19 06:30:00", 64.5, 1 as UInt8), ("2026-11-19 07:10:00", 82.3, 2), ("2026-11-19 19:45:00", 64.9, 1),
        ("2026-11-19 20:20:00", 82.8, 2),
    ].map { time, kilograms, user in
        var reading = SimulatedReading(measuredAt: time, ["weight": .number(kilograms)])
        reading.user = user
        return reading
    }
}

extension Stage {
    /// The stage named `name` in a fleet file: `add`, `sync` or `measure`.
    init?(fleetName name: String) {
        guard let stage = Stage.allCases.first(where: { "\($0)" == name }) else { return nil }
        self = stage
    }
}
