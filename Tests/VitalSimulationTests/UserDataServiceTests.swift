import HealthGATT
import Testing
import VitalCore
import VitalDevices
import VitalSimulation

/// A generic scale that keeps users (the fleet's `userData`), driven byte for byte through the seam as a hub would:
/// the User Control Point, the user data, and which stored records go out on a link.
@Suite("User Data Service of a simulated scale")
struct UserDataServiceTests {
    static let mac = "A0000000001C"
    static let address = MACAddress(mac)!
    typealias G = GATTCharacteristics

    /// A weight of `kilograms` on 2026-11-19 at `hour`, of user `user` (none: no user index).
    static func weight(_ kilograms: Double, hour: Int, user: UInt8?) -> SimulatedReading {
        var reading = SimulatedReading(
            measuredAt: "2026-11-19 \(hour < 10 ? "0" : "")\(hour):00:00", ["weight": .number(kilograms)])
        reading.user = user
        return reading
    }

    /// In memory order: user 1, user 2, a guest (255), no user index, user 3 (no user of the device), user 1.
    static let records = RecordsScript(list: [
        weight(61, hour: 6, user: 1), weight(82, hour: 7, user: 2), weight(23, hour: 8, user: 255),
        weight(70, hour: 9, user: nil), weight(90, hour: 10, user: 3), weight(62, hour: 11, user: 1),
    ])

    /// Ann (index 1, consent 1111, with data and change increment 3) and user 2 (consent 2222, no data), 4 slots.
    static let userData = UserDataScript(
        slots: 4,
        users: [
            UserDataUserScript(
                index: 1, consent: 1111, firstName: "Ann", born: "1980-05-17", height: 168, sex: "female",
                changeIncrement: 3),
            UserDataUserScript(index: 2, consent: 2222),
        ])

    static func scale(_ userData: UserDataScript = userData) -> FleetDevice {
        FleetDevice(model: "WSS", mac: mac, records: records, userData: userData)
    }

    /// A connection to the scale with the User Control Point's indications enabled.
    static func connect(_ world: SimulatedWorld) async throws -> any BluetoothConnection {
        let connection = try await world.connect(to: address)
        try await connection.subscribe(G.userControlPoint)
        return connection
    }

    /// Writes `request` to the User Control Point and returns the response it indicates, confirmed.
    static func control(_ connection: any BluetoothConnection, _ request: [UInt8]) async throws -> [UInt8] {
        try await connection.write(G.userControlPoint, request)
        guard case .indication(G.userControlPoint, let response, let token) = try await connection.nextEvent() else {
            Issue.record("no indication on the User Control Point")
            return []
        }
        try await connection.confirm(token)
        return response
    }

    /// The weights (kilograms, user index) the scale indicates until it goes quiet, each confirmed.
    static func weights(_ connection: any BluetoothConnection) async throws -> [(Double, UInt8?)] {
        var weights: [(Double, UInt8?)] = []
        while let event = try await connection.nextEvent(within: .seconds(5)) {
            guard case .indication(G.weightMeasurement, let bytes, let token) = event else {
                Issue.record("not a weight: \(event)")
                return weights
            }
            let weight = try WeightMeasurement(bytes: bytes)
            weights.append((weight.weight.kilograms(in: weight.system) ?? .nan, weight.userID))
            try await connection.confirm(token)
        }
        return weights
    }

    static func users(_ world: SimulatedWorld) async -> [SimulatedUser] {
        await world.deviceState(of: address)?.users ?? []
    }

    @Test("Register New User takes the lowest free slot and answers its index; a full device answers operation failed")
    func register() async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        // 4321 little-endian: E1 10
        #expect(try await Self.control(connection, [0x01, 0xE1, 0x10]) == [0x20, 0x01, 0x01, 0x00])
        #expect(try await Self.control(connection, [0x01, 0x00, 0x00]) == [0x20, 0x01, 0x01, 0x03])
        #expect(try await Self.control(connection, [0x01, 0x0F, 0x27]) == [0x20, 0x01, 0x04])
        // registering consents nobody: the hub consents next
        #expect(try await connection.read(G.userIndex) == [0xFF])
        let users = await Self.users(world)
        #expect(users.map(\.index) == [0, 1, 2, 3])
        #expect(users[0] == SimulatedUser(index: 0, consentCode: 4321))
        #expect(users[3] == SimulatedUser(index: 3, consentCode: 0))
        #expect(await world.usersKept(by: Self.address) == "4/4")
        // the new user's consent code is the one registered
        #expect(try await Self.control(connection, [0x02, 0x00, 0xE1, 0x10]) == [0x20, 0x02, 0x01])
        #expect(try await connection.read(G.userIndex) == [0x00])
    }

    @Test("Consent: an index without a user is an invalid parameter, a wrong code unauthorized, the right one consents")
    func consent() async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        #expect(try await Self.control(connection, [0x02, 0x03, 0x57, 0x04]) == [0x20, 0x02, 0x03])
        #expect(try await Self.control(connection, [0x02, 0xFF, 0x57, 0x04]) == [0x20, 0x02, 0x03])
        #expect(try await Self.control(connection, [0x02, 0x01, 0x58, 0x04]) == [0x20, 0x02, 0x05])
        #expect(try await connection.read(G.userIndex) == [0xFF])
        // 1111 = 0x0457
        #expect(try await Self.control(connection, [0x02, 0x01, 0x57, 0x04]) == [0x20, 0x02, 0x01])
        #expect(try await connection.read(G.userIndex) == [0x01])
        // a wrong code later leaves the consent as it was; another user's right one moves it
        #expect(try await Self.control(connection, [0x02, 0x02, 0x57, 0x04]) == [0x20, 0x02, 0x05])
        #expect(try await connection.read(G.userIndex) == [0x01])
        #expect(try await Self.control(connection, [0x02, 0x02, 0xAE, 0x08]) == [0x20, 0x02, 0x01])
        #expect(try await connection.read(G.userIndex) == [0x02])
        // the consent is the link's: a new link starts with none
        await connection.disconnect()
        #expect(try await world.connect(to: Self.address).read(G.userIndex) == [0xFF])
    }

    @Test("a user's records go out only on a link consented as that user, sent as soon as the consent succeeds")
    func recordsByConsent() async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        try await connection.subscribe(G.weightMeasurement)
        // before any consent: the guest's and the unindexed record, nobody's user's
        let anyone = try await Self.weights(connection)
        #expect(anyone.map(\.0) == [23, 70] && anyone.map(\.1) == [255, nil])
        // consented as 1 on the subscribed link: the response, then user 1's records
        #expect(try await Self.control(connection, [0x02, 0x01, 0x57, 0x04]) == [0x20, 0x02, 0x01])
        let ann = try await Self.weights(connection)
        #expect(ann.map(\.0) == [61, 62] && ann.map(\.1) == [1, 1])
        // user 2's and user 3's stay on the scale
        let left = await world.storedReadings(of: Self.address).map(\.annotations.userIndex)
        #expect(left == [2, 3])
        // consenting again with nothing of the user's left sends nothing
        #expect(try await Self.control(connection, [0x02, 0x01, 0x57, 0x04]) == [0x20, 0x02, 0x01])
        #expect(try await Self.weights(connection).isEmpty)
    }

    @Test("consented before subscribing, the link is sent its user's records among everyone's, in memory order")
    func consentBeforeSubscribing() async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        #expect(try await Self.control(connection, [0x02, 0x02, 0xAE, 0x08]) == [0x20, 0x02, 0x01])
        try await connection.subscribe(G.weightMeasurement)
        let sent = try await Self.weights(connection)
        #expect(sent.map(\.0) == [82, 23, 70] && sent.map(\.1) == [2, 255, nil])
        #expect(await world.storedReadings(of: Self.address).map(\.annotations.userIndex) == [1, 3, 1])
    }

    @Test("Delete User Data needs a consent; it frees the slot, forgets the user's records and is kept in the state")
    func deleteUserData() async throws {
        let fleet = Fleet(devices: [Self.scale()])
        let world = try SimulatedWorld(fleet: fleet, start: start)
        let connection = try await Self.connect(world)
        #expect(try await Self.control(connection, [0x03]) == [0x20, 0x03, 0x05])
        #expect(try await Self.control(connection, [0x02, 0x01, 0x57, 0x04]) == [0x20, 0x02, 0x01])
        #expect(try await Self.control(connection, [0x03]) == [0x20, 0x03, 0x01])
        // the link's consent is gone with the user
        #expect(try await connection.read(G.userIndex) == [0xFF])
        #expect(try await Self.control(connection, [0x03]) == [0x20, 0x03, 0x05])
        #expect(await Self.users(world).map(\.index) == [2])
        #expect(await world.storedReadings(of: Self.address).map(\.annotations.userIndex) == [2, 255, nil, 3])
        // slot 1 is free again: the second registration takes it
        #expect(try await Self.control(connection, [0x01, 0x01, 0x00]) == [0x20, 0x01, 0x01, 0x00])
        #expect(try await Self.control(connection, [0x01, 0x02, 0x00]) == [0x20, 0x01, 0x01, 0x01])
        await connection.disconnect()
        // the next process sees it all through the saved JSON
        let saved = try #require(await world.state().devices[Self.mac])
        let later = try SimulatedWorld(
            fleet: fleet, state: WorldState(devices: [Self.mac: try DeviceState(json: saved.json)]), start: start)
        #expect(await later.deviceState(of: Self.address) == saved)
        let again = try await Self.connect(later)
        #expect(try await Self.control(again, [0x02, 0x01, 0x57, 0x04]) == [0x20, 0x02, 0x05])
        #expect(try await Self.control(again, [0x02, 0x01, 0x02, 0x00]) == [0x20, 0x02, 0x01])
        try await again.subscribe(G.weightMeasurement)
        #expect(try await Self.weights(again).map(\.1) == [255, nil])
    }

    @Test("Delete User Data during a transfer forgets the user's records not yet sent; the others still follow")
    func deleteDuringTransfer() async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        #expect(try await Self.control(connection, [0x02, 0x01, 0x57, 0x04]) == [0x20, 0x02, 0x01])
        try await connection.subscribe(G.weightMeasurement)
        // the first of Ann's records, then she deletes her data while it waits for its confirmation
        guard case .indication(G.weightMeasurement, _, let token) = try await connection.nextEvent() else {
            Issue.record("no weight")
            return
        }
        try await connection.write(G.userControlPoint, [0x03])
        try await connection.confirm(token)
        guard case .indication(G.userControlPoint, let response, let answered) = try await connection.nextEvent() else {
            Issue.record("no response")
            return
        }
        #expect(response == [0x20, 0x03, 0x01])
        try await connection.confirm(answered)
        #expect(try await Self.weights(connection).map(\.1) == [255, nil])
        #expect(await world.storedReadings(of: Self.address).map(\.annotations.userIndex) == [2, 3])
    }

    /// The characteristics of the consented user's data.
    static let userDataCharacteristics: [CharacteristicID] = [
        G.databaseChangeIncrement, G.firstName, G.age, G.dateOfBirth, G.gender, G.height,
    ]

    @Test("the user data and the change increment are read and written only after a consent (ATT error 0x80)")
    func accessNeedsConsent() async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        #expect(try await connection.read(G.userIndex) == [0xFF])
        for characteristic in Self.userDataCharacteristics {
            let read = await #expect(throws: DeviceError.self) { try await connection.read(characteristic) }
            #expect(read?.code == .protocolViolation)
            #expect(read?.message.contains("user data access not permitted (ATT error 0x80)") == true)
            // what a transport serving the world answers (bluetoothd's "Operation failed with ATT error: 0x80")
            #expect(read?.simulatedATTError == 0x80)
            let write = await #expect(throws: DeviceError.self) { try await connection.write(characteristic, [0]) }
            #expect(write?.message.contains("user data access not permitted (ATT error 0x80)") == true)
        }
        #expect(await Self.users(world) == world.configurations[0].userData?.users)
    }

    @Test("consented, the device reads its user's values in the HealthGATT encodings; unknown values as the spec says")
    func reads() async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        #expect(try await Self.control(connection, [0x02, 0x01, 0x57, 0x04]) == [0x20, 0x02, 0x01])
        #expect(try await connection.read(G.databaseChangeIncrement) == [3, 0, 0, 0])
        #expect(try await connection.read(G.firstName) == Array("Ann".utf8))
        // 46 on 2026-11-20: born 1980-05-17
        #expect(try await connection.read(G.age) == [46])
        #expect(try await connection.read(G.dateOfBirth) == [0xBC, 0x07, 5, 17])
        #expect(try await connection.read(G.gender) == [1])
        #expect(try await connection.read(G.height) == [168, 0])
        // user 2 has no data
        #expect(try await Self.control(connection, [0x02, 0x02, 0xAE, 0x08]) == [0x20, 0x02, 0x01])
        #expect(try await connection.read(G.databaseChangeIncrement) == [0, 0, 0, 0])
        #expect(try await connection.read(G.firstName) == [])
        #expect(try await connection.read(G.age) == [0])
        #expect(try await connection.read(G.dateOfBirth) == [0, 0, 0, 0])
        #expect(try await connection.read(G.gender) == [2])
        #expect(try await connection.read(G.height) == [0, 0])
        let control = await #expect(throws: DeviceError.self) { try await connection.read(G.userControlPoint) }
        #expect(control?.message.contains("cannot be read") == true && control?.simulatedATTError == nil)
    }

    @Test("consented, a write stores its value for the user; a value that does not decode is refused")
    func writes() async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        #expect(try await Self.control(connection, [0x02, 0x02, 0xAE, 0x08]) == [0x20, 0x02, 0x01])
        // an Age is read back while the date of birth is unknown
        try await connection.write(G.age, [30])
        #expect(try await connection.read(G.age) == [30])
        try await connection.write(G.firstName, Array("Bob".utf8))
        try await connection.write(G.dateOfBirth, [0xB7, 0x07, 1, 2])
        try await connection.write(G.gender, [0])
        try await connection.write(G.height, [181, 0])
        try await connection.write(G.databaseChangeIncrement, [7, 0, 0, 1])
        #expect(try await connection.read(G.firstName) == Array("Bob".utf8))
        #expect(try await connection.read(G.age) == [51])
        #expect(try await connection.read(G.dateOfBirth) == [0xB7, 0x07, 1, 2])
        #expect(try await connection.read(G.gender) == [0])
        #expect(try await connection.read(G.height) == [181, 0])
        #expect(try await connection.read(G.databaseChangeIncrement) == [7, 0, 0, 1])
        let bob = try #require(await Self.users(world).first { $0.index == 2 })
        #expect(
            bob
                == SimulatedUser(
                    index: 2, consentCode: 2222, firstName: "Bob",
                    profile: PersonProfile(
                        born: CalendarDate(year: 1975, month: 1, day: 2), heightCentimetres: 181, sex: .male),
                    age: 30, changeIncrement: 0x0100_0007))
        // Ann's values are untouched
        #expect(await Self.users(world).first { $0.index == 1 }?.firstName == "Ann")
        // unknown again: 0000 00 00 and a height of 0
        try await connection.write(G.dateOfBirth, [0, 0, 0, 0])
        try await connection.write(G.height, [0, 0])
        #expect(try await connection.read(G.age) == [30])
        #expect(try await connection.read(G.dateOfBirth) == [0, 0, 0, 0])
        #expect(try await connection.read(G.height) == [0, 0])
        for (characteristic, value) in [
            (G.height, [181]), (G.gender, [3]), (G.dateOfBirth, [0xB7, 0x07, 13, 2]),
            (G.dateOfBirth, [0xBC, 0x07, 2, 30]), (G.dateOfBirth, [0xBC, 0x07, 0, 0]), (G.firstName, [0xFF]),
            (G.databaseChangeIncrement, [1, 2, 3]), (G.age, []),
        ] as [(CharacteristicID, [UInt8])] {
            let refused = await #expect(throws: DeviceError.self, "\(characteristic) \(value)") {
                try await connection.write(characteristic, value)
            }
            #expect(refused?.code == .protocolViolation)
        }
        #expect(await Self.users(world).first { $0.index == 2 }?.profile.heightCentimetres == nil)
        let index = await #expect(throws: DeviceError.self) { try await connection.write(G.userIndex, [1]) }
        #expect(index?.message.contains("cannot be written") == true)
    }

    @Test("a User Control Point write without its indications enabled is refused and changes nothing")
    func controlPointNeedsIndications() async throws {
        let world = try world(Self.scale())
        let connection = try await world.connect(to: Self.address)
        let before = await Self.users(world)
        for request: [UInt8] in [[0x01, 0xE1, 0x10], [0x02, 0x01, 0x57, 0x04], [0x03]] {
            let refused = await #expect(throws: DeviceError.self) {
                try await connection.write(G.userControlPoint, request)
            }
            #expect(refused?.code == .protocolViolation)
            #expect(refused?.message.contains("indications of the User Control Point") == true)
            #expect(refused?.simulatedATTError == 0xFD)
        }
        #expect(await Self.users(world) == before)
        #expect(try await connection.read(G.userIndex) == [0xFF])
    }

    @Test(
        "op codes the device does not support answer 02, a malformed or out-of-range parameter 03",
        arguments: [
            ([0x04], [0x20, 0x04, 0x02]), ([0x05, 0x01], [0x20, 0x05, 0x02]), ([0x05, 0xFF], [0x20, 0x05, 0x02]),
            ([0x00], [0x20, 0x00, 0x02]), ([0x06, 0x01], [0x20, 0x06, 0x02]), ([0xFF], [0x20, 0xFF, 0x02]),
            ([0x20, 0x01, 0x01], [0x20, 0x20, 0x02]),
            // consent code 10000 (0x2710), short, long
            ([0x01, 0x10, 0x27], [0x20, 0x01, 0x03]), ([0x01, 0x05], [0x20, 0x01, 0x03]),
            ([0x01, 0x05, 0x00, 0x00], [0x20, 0x01, 0x03]), ([0x02, 0x01, 0x10, 0x27], [0x20, 0x02, 0x03]),
            ([0x02, 0x01], [0x20, 0x02, 0x03]), ([0x03, 0x00], [0x20, 0x03, 0x03]),
        ] as [([UInt8], [UInt8])])
    func unsupportedAndMalformed(request: [UInt8], response: [UInt8]) async throws {
        let world = try world(Self.scale())
        let connection = try await Self.connect(world)
        #expect(try await Self.control(connection, request) == response)
        #expect(await Self.users(world).map(\.index) == [1, 2])
        #expect(try await connection.read(G.userIndex) == [0xFF])
    }

    @Test("the users round-trip through the saved JSON; a state saved before devices kept users keeps the fleet's")
    func stateRoundTrip() async throws {
        let fleet = Fleet(devices: [Self.scale()])
        let world = try SimulatedWorld(fleet: fleet, start: start)
        let connection = try await Self.connect(world)
        #expect(try await Self.control(connection, [0x02, 0x02, 0xAE, 0x08]) == [0x20, 0x02, 0x01])
        try await connection.write(G.age, [30])
        try await connection.write(G.firstName, Array("Bo \"B\"".utf8))
        let state = try #require(await world.deviceState(of: Self.address))
        let json = String(decoding: state.json, as: UTF8.self)
        #expect(
            json.split(separator: "\n")[0].contains(
                #""users":[{"born":"1980-05-17","changeIncrement":3,"consent":1111,"firstName":"Ann","height":168,"#
                    + #""index":1,"sex":"female"},{"age":30,"changeIncrement":0,"consent":2222,"#
                    + #""firstName":"Bo \"B\"","index":2}]"#))
        #expect(try DeviceState(json: state.json) == state)
        // an older state: no users member
        var old = state
        old.users = nil
        #expect(!String(decoding: old.json, as: UTF8.self).contains("users"))
        let reread = try DeviceState(json: old.json)
        #expect(reread.users == nil)
        let later = try SimulatedWorld(fleet: fleet, state: WorldState(devices: [Self.mac: reread]), start: start)
        #expect(await later.deviceState(of: Self.address)?.users == world.configurations[0].userData?.users)
        #expect(await later.deviceState(of: Self.address)?.records == state.records)
        #expect(await later.usersKept(by: Self.address) == "2/4")
        // and restored into a running world
        try await world.restore(reread, for: Self.address)
        #expect(await Self.users(world).first { $0.index == 2 }?.age == nil)
    }

    @Test("a saved state's users are checked against the device: its slots, once each, only with a User Data Service")
    func stateUsersChecked() async throws {
        let world = try world(Self.scale())
        let state = try #require(await world.deviceState(of: Self.address))
        var outside = state
        outside.users?.append(SimulatedUser(index: 4, consentCode: 1))
        await #expect(
            throws: FleetError(
                path: "state.\(Self.mac).users[2].index", message: "must be from 0 to 3 (the device's slots)")
        ) { try await world.restore(outside, for: Self.address) }
        var twice = state
        twice.users?.append(SimulatedUser(index: 1, consentCode: 1))
        await #expect(throws: FleetError(path: "state.\(Self.mac).users[2].index", message: "repeats user index 1")) {
            try await world.restore(twice, for: Self.address)
        }
        #expect(await world.deviceState(of: Self.address) == state)
        var plain = Self.scale()
        plain.userData = nil
        #expect(
            throws: FleetError(
                path: "state.\(Self.mac).users",
                message: "are for a device with a User Data Service (the fleet's userData): this one has none")
        ) {
            try SimulatedWorld(
                fleet: Fleet(devices: [plain]), state: WorldState(devices: [Self.mac: state]), start: start)
        }
        #expect(
            throws: FleetError(path: "state.users[0].index", message: "must be a user index from 0 to 254")
        ) {
            try DeviceState(
                json: Array(
                    String(decoding: state.json, as: UTF8.self).replacing(#""index":1"#, with: #""index":255"#).utf8))
        }
        #expect(throws: FleetError(path: "state.users[1].age", message: "must be from 0 to 255")) {
            var aged = state
            aged.users?[1].age = 1
            return try DeviceState(
                json: Array(String(decoding: aged.json, as: UTF8.self).replacing(#""age":1"#, with: #""age":256"#).utf8)
            )
        }
    }

    /// A fleet of one `model` with `userData` (JSON).
    static func fleet(_ model: String, _ userData: String) -> String {
        #"{"devices": [{"mac": "A0000000001C", "model": ""# + model + #"", "userData": "# + userData + "}]}"
    }

    /// A scale's `userData` of 2 slots and one user, `user` its members after an index of 0.
    static func user(_ members: String) -> String { #"{"slots": 2, "users": [{"index": 0, "# + members + "}]}" }

    static let notKept = "only a generic blood pressure monitor or weight scale keeps users"

    @Test(
        "every bad userData value is refused at its path (after devices[0].userData)",
        arguments: [
            ("BP5", #"{"slots": 2}"#, "", "is not for a BP5: " + notKept),
            ("HS2", #"{"slots": 2}"#, "", "is not for a HS2: " + notKept),
            ("PLXS", #"{"slots": 2}"#, "", "is not for a PLXS: " + notKept),
            ("WSS", "{}", ".slots", "is required"),
            ("WSS", #"{"slots": 0}"#, ".slots", "must be from 1 to 255"),
            ("BPS", #"{"slots": 256}"#, ".slots", "must be from 1 to 255"),
            ("WSS", #"{"slots": 2, "extra": 1}"#, ".extra", "is not a known field"),
            ("WSS", #"{"slots": 2, "users": [{"consent": 1}]}"#, ".users[0].index", "is required"),
            ("WSS", #"{"slots": 2, "users": [{"index": 0}]}"#, ".users[0].consent", "is required"),
            (
                "WSS", #"{"slots": 2, "users": [{"index": 2, "consent": 1}]}"#, ".users[0].index",
                "must be from 0 to 1 (the device's slots)"
            ),
            (
                "WSS", #"{"slots": 255, "users": [{"index": 255, "consent": 1}]}"#, ".users[0].index",
                "must be a user index from 0 to 254"
            ),
            (
                "WSS", #"{"slots": 2, "users": [{"index": -1, "consent": 1}]}"#, ".users[0].index",
                "must be a user index from 0 to 254"
            ),
            (
                "WSS", #"{"slots": 4, "users": [{"index": 1, "consent": 1}, {"index": 1, "consent": 2}]}"#,
                ".users[1].index", "repeats user index 1"
            ),
            ("WSS", user(#""consent": 10000"#), ".users[0].consent", "must be from 0 to 9999"),
            ("WSS", user(#""consent": -1"#), ".users[0].consent", "must be from 0 to 9999"),
            ("WSS", user(#""consent": "1111""#), ".users[0].consent", "is a string, not a whole number"),
            ("WSS", user(#""consent": 1, "firstName": 5"#), ".users[0].firstName", "is a number, not a string"),
            (
                "WSS", user(#""consent": 1, "born": "1980-02-30""#), ".users[0].born",
                "is not a date yyyy-MM-dd from 1582-01-01"
            ),
            (
                "WSS", user(#""consent": 1, "born": "17/05/1980""#), ".users[0].born",
                "is not a date yyyy-MM-dd from 1582-01-01"
            ),
            (
                "WSS", user(#""consent": 1, "born": "1500-01-01""#), ".users[0].born",
                "is not a date yyyy-MM-dd from 1582-01-01"
            ),
            ("WSS", user(#""consent": 1, "height": 0"#), ".users[0].height", "must be from 1 to 65535 (centimetres)"),
            (
                "WSS", user(#""consent": 1, "height": 65536"#), ".users[0].height",
                "must be from 1 to 65535 (centimetres)"
            ),
            ("WSS", user(#""consent": 1, "sex": "other""#), ".users[0].sex", "must be female, male or unspecified"),
            (
                "WSS", user(#""consent": 1, "changeIncrement": -1"#), ".users[0].changeIncrement",
                "must be from 0 to 4294967295"
            ),
            (
                "WSS", user(#""consent": 1, "changeIncrement": 4294967296"#), ".users[0].changeIncrement",
                "must be from 0 to 4294967295"
            ),
            // the Age a host wrote is the saved state's alone
            ("WSS", user(#""consent": 1, "age": 30"#), ".users[0].age", "is not a known field"),
        ])
    func fleetErrors(model: String, userData: String, path: String, message: String) {
        #expect(throws: FleetError(path: "devices[0].userData" + path, message: message)) {
            try SimulatedWorld(fleet: Fleet(json: Array(Self.fleet(model, userData).utf8)), start: start)
        }
    }

    @Test("the fleet's userData reads and writes back; a blood pressure monitor keeps users too")
    func fleetJSON() throws {
        let document = #"""
            {"devices": [{"model": "BPS", "mac": "A0000000001D", "userData": {"slots": 1, "users": [
              {"index": 0, "consent": 0, "sex": "unspecified", "changeIncrement": 4294967295}]}}]}
            """#
        let fleet = try Fleet(json: Array(document.utf8))
        #expect(try Fleet(json: fleet.json) == fleet)
        let world = try SimulatedWorld(fleet: fleet, start: start)
        let users = try #require(world.configurations[0].userData)
        #expect(users.slots == 1)
        #expect(
            users.users == [
                SimulatedUser(
                    index: 0, consentCode: 0, profile: PersonProfile(sex: .unspecified), changeIncrement: .max)
            ])
        #expect(
            try Fleet(
                json: Array(#"{"devices": [{"model": "WSS", "mac": "A0000000001C", "userData": {"slots": 3}}]}"#.utf8)
            ).devices[0].userData == UserDataScript(slots: 3))
    }

    @Test("a device without a User Data Service sends every record as before, whatever its user index")
    func withoutUserData() async throws {
        let world = try world(FleetDevice(model: "WSS", mac: Self.mac, records: Self.records))
        let connection = try await world.connect(to: Self.address)
        try await connection.subscribe(G.weightMeasurement)
        #expect(try await Self.weights(connection).map(\.1) == [1, 2, 255, nil, 3, 1])
        let missing = await #expect(throws: DeviceError.self) { try await connection.read(G.userIndex) }
        #expect(missing?.code == .unsupported)
        #expect(await world.usersKept(by: Self.address) == "none")
    }

    @Test("the built-in scale keeps Ann and Bob, whose weights a hub that consents as neither never receives")
    func defaultScale() async throws {
        let world = try SimulatedWorld(fleet: .default, start: start)
        let mac = MACAddress("004D3208D316")!
        #expect(await world.usersKept(by: mac) == "2/4")
        #expect(await world.usersKept(by: MACAddress("004D3208D30C")!) == "none")
        let users = await world.deviceState(of: mac)?.users ?? []
        #expect(
            users == [
                SimulatedUser(
                    index: 1, consentCode: 1111, firstName: "Ann",
                    profile: PersonProfile(
                        born: CalendarDate(year: 1980, month: 5, day: 17), heightCentimetres: 168, sex: .female),
                    changeIncrement: 1),
                SimulatedUser(
                    index: 2, consentCode: 2222, firstName: "Bob",
                    profile: PersonProfile(
                        born: CalendarDate(year: 1975, month: 1, day: 2), heightCentimetres: 181, sex: .male),
                    changeIncrement: 1),
            ])
        let stored = await world.storedReadings(of: mac)
        #expect(stored.map(\.annotations.userIndex) == [1, 2, 1, 2, nil, nil, nil, nil, nil])
        #expect(stored.allSatisfy { $0.measuredAt.day == CalendarDate(parsing: "2026-11-19")! })
        // the scale's driver, consenting as nobody, syncs the five generated weights and leaves the users' four
        let sink = MemorySink()
        let synced = try await driver(world, "004D3208D316").sync(into: sink) { _ in }
        // (the driver stores a weight and its body composition as the scale indicates them, apart)
        #expect(synced == 5)
        #expect(Set(sink.readings.map(\.measuredAt)) == Set(stored.suffix(5).map(\.measuredAt)))
        #expect(sink.readings.allSatisfy { $0.annotations.userIndex == nil })
        #expect(await world.storedReadings(of: mac) == Array(stored.prefix(4)))
    }
}
