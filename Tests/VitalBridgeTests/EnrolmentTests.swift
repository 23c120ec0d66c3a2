import Testing
import VitalBridge
import VitalCore
import VitalDevices
import VitalSimulation
import VitalStore
import VitalTestSupport

/// Issue 54 in process: people enrol on a simulated family scale with a User Data Service, and every sync consents as
/// each of them; the readings of each user index go to its person, guests and unclaimed users never.
@Suite("Enrolments on a device with a User Data Service")
struct EnrolmentTests {
    static let scale = MACAddress("004D3208D316")!

    /// The scale: users 1 (Ann, 1111, her data on the scale), 2 (Bob, 2222) and 3 (3333, no one of the
    /// home), each with records, and a guest's record (user 255); slot 0 is free.
    static let fleet = """
        {"devices": [{"model": "\(DeviceModel.weightScale.name)", "mac": "004D3208D316",
          "userData": {"slots": 4, "users": [
            {"index": 1, "consent": 1111, "firstName": "Ann", "born": "1980-05-17", "height": 168, "sex": "female",
             "changeIncrement": 4},
            {"index": 2, "consent": 2222, "changeIncrement": 1},
            {"index": 3, "consent": 3333}]},
          "records": {"list": [
            {"measuredAt": "2026-11-19 07:00:00", "weight": 61.5, "user": 1},
            {"measuredAt": "2026-11-19 07:05:00", "weight": 80.5, "user": 2},
            {"measuredAt": "2026-11-19 07:10:00", "weight": 62, "user": 1},
            {"measuredAt": "2026-11-19 07:15:00", "weight": 55, "user": 3},
            {"measuredAt": "2026-11-19 07:20:00", "weight": 70, "user": 255}]}}]}
        """

    /// A desk over the scale (its fleet entry `fleet`), added to the hub, with Ann and Bob in the home and a caller
    /// each.
    static func home(fleet: String = fleet) throws -> (desk: DeviceDesk, store: VitalStore, world: SimulatedWorld) {
        let world = try SimulatedWorld(fleet: Fleet(json: Array(fleet.utf8)), start: Engine.start)
        let store = try VitalStore()
        try store.saveDevice(StoredDevice(mac: scale, model: .weightScale, addedAt: Engine.start))
        try store.people.add("Ann")
        try store.people.add("Bob", profile: PersonProfile(heightCentimetres: 181, sex: .male))
        try store.people.setPerson("Ann", forCaller: "ann.app")
        try store.people.setPerson("Bob", forCaller: "bob.app")
        let clock = world.clock
        let desk = DeviceDesk(
            store: store, central: world, leases: LocalLeases(), clock: ContinuousClock(), now: { clock.wallTime },
            logger: testLogger)
        return (desk, store, world)
    }

    /// The weights `caller` would be handed now, in kilograms.
    static func weights(_ store: VitalStore, for caller: String) throws -> [Double] {
        try store.readings.all(device: scale).filter { try store.people.isDeliverable($0.id, to: caller) }.compactMap {
            guard case .weight(let weight) = $0.reading else { return nil }
            return weight.kilograms
        }
    }

    @Test("the issue's family: Ann and Bob claim their users, a wrong code assigns nothing, a sync takes theirs only")
    func family() async throws {
        let (desk, store, world) = try Self.home()
        let ann = try await desk.enroll("Ann", on: Self.scale, userIndex: 1, consentCode: 1111)
        #expect(ann.way == .claimed && ann.userIndex == 1 && ann.chosenConsentCode == nil)
        // Ann's data were only on the scale: the home takes them
        #expect(ann.adoptedDeviceData)
        let annData = try #require(try store.people.all().first { $0.name == "Ann" }).profile
        #expect(
            annData
                == PersonProfile(
                    born: CalendarDate(year: 1980, month: 5, day: 17), heightCentimetres: 168, sex: .female))
        await #expect {
            try await desk.enroll("Bob", on: Self.scale, userIndex: 2, consentCode: 9999)
        } throws: { error in
            let error = error as? DeviceDeskError
            return error?.code == .refused && error?.message.contains("nothing was assigned to Bob") == true
                && error?.message.contains("9999") == false
        }
        #expect(try store.people.enrolments(on: Self.scale).map(\.person) == ["Ann"])
        let bob = try await desk.enroll("Bob", on: Self.scale, userIndex: 2, consentCode: 2222)
        #expect(bob.way == .claimed && !bob.adoptedDeviceData)

        let sync = try await desk.sync(Self.scale)
        #expect(sync.refusals.isEmpty)
        #expect(sync.stored == 4)  // the guest's, Ann's two, Bob's
        #expect(try Self.weights(store, for: "ann.app") == [61.5, 62])
        #expect(try Self.weights(store, for: "bob.app") == [80.5])
        var quarantined: [UInt8?] = []
        try store.readings.forEach(selection: .quarantined) { quarantined.append($0.reading.annotations.userIndex) }
        #expect(quarantined == [255])
        // user 3 was never consented as: its record stays on the scale
        #expect(await world.storedReadings(of: Self.scale).map(\.annotations.userIndex) == [3])
        // Bob's data were the home's: written to the scale with its next change increment
        let enrolments = try store.people.enrolments(on: Self.scale)
        #expect(enrolments.map(\.changeIncrement) == [4, 2])
    }

    @Test("forget deletes the user on the device and keeps the person's readings; the slot's next user is not theirs")
    func forget() async throws {
        let (desk, store, _) = try Self.home()
        try await desk.enroll("Bob", on: Self.scale, userIndex: 2, consentCode: 2222)
        // never synced: forget stores what the scale holds of Bob (and the guest's, which anyone gets) before
        // deleting him there
        let ended = try await desk.forget("Bob", on: Self.scale)
        #expect(ended.enrolment.userIndex == 2 && ended.stored == 2 && ended.deviceRefused == nil)
        #expect("\(ended)".contains("2 records stored first, their data deleted on the device"))
        #expect(try Self.weights(store, for: "bob.app") == [80.5])
        // the scale no longer knows user 2: claiming it again is refused by the device
        await #expect {
            try await desk.enroll("Bob", on: Self.scale, userIndex: 2, consentCode: 2222)
        } throws: { ($0 as? DeviceDeskError)?.message.contains("no user 2") == true }
        // a new user of slot 2 measures later: no one's, least of all Bob's
        let later = Reading.weight(
            WeightReading(
                kilograms: 90, measuredAt: Timestamp(secondsSince1970: Engine.start.secondsSince1970 + 86_400),
                annotations: ReadingAnnotations(userIndex: 2)))
        try store.readings.store([later], device: Self.scale)
        #expect(try Self.weights(store, for: "bob.app") == [80.5])
    }

    @Test("forget on a scale that sends each weight's composition after it stores all the person's records first")
    func forgetWithComposition() async throws {
        // the scale is sending the guest's weight, its composition still to come, as the hub consents as Bob: his
        // records, which it passed over, must come after it, before Delete User Data erases them
        let composing = Self.fleet.replacing(
            "\"mac\": \"004D3208D316\",", with: "\"mac\": \"004D3208D316\", \"bodyComposition\": \"afterWeight\",")
        #expect(composing != Self.fleet)
        let (desk, store, world) = try Self.home(fleet: composing)
        try await desk.enroll("Bob", on: Self.scale, userIndex: 2, consentCode: 2222)
        let ended = try await desk.forget("Bob", on: Self.scale)
        #expect(ended.stored == 2 && ended.deviceRefused == nil)
        #expect(try Self.weights(store, for: "bob.app") == [80.5])
        #expect(await world.deviceState(of: Self.scale)?.users?.map(\.index) == [1, 3])
    }

    @Test("a new user is registered in the first free slot with a chosen code, shown once, and the home's data")
    func register() async throws {
        let (desk, store, world) = try Self.home()
        // a reading of slot 0 from an earlier user, in quarantine: never the new user's
        let earlier = Reading.weight(
            WeightReading(
                kilograms: 99, measuredAt: Timestamp(secondsSince1970: Engine.start.secondsSince1970 - 3600),
                annotations: ReadingAnnotations(userIndex: 0)))
        try store.readings.store([earlier], device: Self.scale)
        let bob = try await desk.enroll("Bob", on: Self.scale, userIndex: nil, consentCode: nil)
        #expect(bob.way == .registered && bob.userIndex == 0)
        let code = try #require(bob.chosenConsentCode)
        #expect(code <= 9999)
        #expect("\(bob)".contains("consent code: \(code)"))
        let enrolment = try #require(try store.people.enrolments(on: Self.scale).first)
        #expect(enrolment.consentCode == code && enrolment.changeIncrement == 1)
        #expect(bob.released == 0)
        #expect(try Self.weights(store, for: "bob.app").isEmpty)
        // enrolling again checks the code instead of registering another user
        let again = try await desk.enroll("Bob", on: Self.scale, userIndex: nil, consentCode: nil)
        #expect(again.way == .checked && again.userIndex == 0 && again.chosenConsentCode == nil)
        #expect("\(again)".contains("\(code)") == false)
        // the scale is full after one more registration and a claim of every other slot
        try store.people.add("Carl")
        try await desk.enroll("Carl", on: Self.scale, userIndex: 3, consentCode: 3333)
        try store.people.add("Dee")
        try await desk.enroll("Dee", on: Self.scale, userIndex: 1, consentCode: 1111)
        try store.people.add("Eve")
        await #expect {
            try await desk.enroll("Eve", on: Self.scale, userIndex: nil, consentCode: 1234)
        } throws: { ($0 as? DeviceDeskError)?.message.contains("no free user slot") == true }
        _ = world
    }

    @Test("a sync names each refusal and still takes the others' records")
    func refusals() async throws {
        let (desk, store, _) = try Self.home()
        try await desk.enroll("Ann", on: Self.scale, userIndex: 1, consentCode: 1111)
        try await desk.enroll("Bob", on: Self.scale, userIndex: 2, consentCode: 2222)
        // Bob's index is refused to Zed before the scale is asked anything: his data there stay his
        try store.people.add("Zed")
        let before = try store.people.enrolments(on: Self.scale)
        await #expect {
            try await desk.enroll("Zed", on: Self.scale, userIndex: 2, consentCode: 2222)
        } throws: {
            ($0 as? DeviceDeskError)?.message == "user 2 of \(Self.scale) is Bob's already: nothing was assigned"
        }
        #expect(try store.people.enrolments(on: Self.scale) == before)
        // Bob's user is deleted on the device by someone else, through another host
        try store.people.add("Other")
        try await desk.enroll("Other", on: Self.scale, userIndex: 3, consentCode: 3333)
        _ = try await desk.forget("Bob", on: Self.scale)
        // as if the home still believed Bob enrolled: enrol him on index 2 of the store only
        try store.people.enroll(
            "Bob", device: Self.scale, userIndex: 2, consentCode: 2222, changeIncrement: 1)
        let sync = try await desk.sync(Self.scale)
        #expect(sync.refusals.map(\.person) == ["Bob"])
        #expect(sync.refusals.first?.error.code == .unknownUser)
        let line = try #require(sync.refusals.first?.description)
        #expect(line.hasPrefix("\(Self.scale): ") && line.contains("people forget Bob") && !line.contains("2222"))
        #expect(try Self.weights(store, for: "ann.app") == [61.5, 62])
    }

    @Test("serve consents too: a scale appearing in the morning gives each enrolled person their records")
    func served() async throws {
        let fleet = try Fleet(json: Array(Self.fleet.utf8))
        let service = try Service([.weightScale], fleet: fleet.devices) { device in
            device.presence = [PresenceScript(at: "07:00", seconds: 60)]
        }
        try service.store.people.add("Ann")
        try service.store.people.setPerson("Ann", forCaller: "ann.app")
        // enrolled earlier, when the scale was in range
        try service.store.people.enroll(
            "Ann", device: Self.scale, userIndex: 1, consentCode: 1111, changeIncrement: 4)
        try await service.run(seconds: 1_200)
        #expect(service.syncs(of: Self.scale).map(\.stored) == [3])  // the guest's and Ann's two
        #expect(try Self.weights(service.store, for: "ann.app") == [61.5, 62])
        #expect(await service.world.storedReadings(of: Self.scale).map(\.annotations.userIndex) == [2, 3])
    }

    @Test("whose data win: the device's when only they changed, none taken when its increment went back")
    func changeIncrements() async throws {
        let (desk, store, _) = try Self.home()
        try await desk.enroll("Ann", on: Self.scale, userIndex: 1, consentCode: 1111)
        try await desk.enroll("Bob", on: Self.scale, userIndex: 2, consentCode: 2222)
        // the home last knew Ann's user at increment 2 with other data: the scale's 4 are newer, and win
        var ann = try #require(try store.people.enrolments(on: Self.scale).first { $0.person == "Ann" })
        try store.people.recordSync(
            of: ann, changeIncrement: 2, profileVersion: ann.profileVersion,
            adopted: PersonProfile(heightCentimetres: 150))
        // the home wrote Bob's user at increment 7: the scale's 2 went back (reset, or registered again)
        let bob = try #require(try store.people.enrolments(on: Self.scale).first { $0.person == "Bob" })
        try store.people.recordSync(of: bob, changeIncrement: 7, profileVersion: bob.profileVersion)
        let sync = try await desk.sync(Self.scale)
        ann = try #require(try store.people.enrolments(on: Self.scale).first { $0.person == "Ann" })
        #expect(ann.changeIncrement == 4 && ann.profile.heightCentimetres == 168 && ann.profile.sex == .female)
        #expect(sync.refusals.map(\.person) == ["Bob"] && sync.refusals.first?.error.code == .userDataRewound)
        #expect(sync.refusals.first?.description.contains("enroll Bob --mac \(Self.scale) --user-index 2") == true)
        // what the scale sent for user 2 is stored all the same, under the index it reported
        #expect(try Self.weights(store, for: "bob.app") == [80.5])
        // enrolling Bob again takes the scale's increment as the baseline: the next sync is clean
        let again = try await desk.enroll("Bob", on: Self.scale, userIndex: 2, consentCode: 2222)
        #expect(again.way == .checked)
        #expect(try await desk.sync(Self.scale).refusals.isEmpty)
    }

    @Test("whose data win when both changed: the home's, written with the device's increment plus one")
    func bothChanged() async throws {
        let (desk, store, world) = try Self.home()
        func ann() throws -> Enrolment { try #require(try store.people.enrolments(on: Self.scale).first) }
        func device() async -> SimulatedUser? {
            await world.deviceState(of: Self.scale)?.users?.first { $0.index == 1 }
        }
        // Ann's home has no data: she takes the scale's (born 1980-05-17, 168 cm, female; increment 4)
        try await desk.enroll("Ann", on: Self.scale, userIndex: 1, consentCode: 1111)
        // the home last knew her user at increment 2 (the scale's changed since), and her height changes at home too
        try store.people.recordSync(of: ann(), changeIncrement: 2, profileVersion: ann().profileVersion)
        let changed = try store.people.update("Ann", with: PersonProfile(heightCentimetres: 170))
        #expect(
            changed == PersonProfile(born: CalendarDate(parsing: "1980-05-17"), heightCentimetres: 170, sex: .female))
        #expect(try await desk.sync(Self.scale).refusals.isEmpty)
        #expect(try ann().changeIncrement == 5 && ann().profile == changed)
        let written = await device()
        #expect(written?.changeIncrement == 5 && written?.profile == changed)
        // a change to what she has already is none: nothing is written
        #expect(try store.people.update("Ann", with: PersonProfile(sex: .female)) == changed)
        #expect(try await desk.sync(Self.scale).refusals.isEmpty)
        #expect(await device()?.changeIncrement == 5)
        // a change made at home only is written by the next sync
        _ = try store.people.update("Ann", with: PersonProfile(heightCentimetres: 171))
        #expect(try await desk.sync(Self.scale).refusals.isEmpty)
        #expect(try ann().changeIncrement == 6)
        let rewritten = await device()
        #expect(rewritten?.changeIncrement == 6 && rewritten?.profile.heightCentimetres == 171)
        #expect(throws: StoreError.self) { try store.people.update("Zed", with: PersonProfile(sex: .male)) }
    }
}
