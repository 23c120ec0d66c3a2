import Logging
import VitalCore
import VitalDevices
import VitalStore

/// A person whose records a sync could not take: the device refused to let the hub act as them.
public struct UserRefusal: Hashable, Sendable, CustomStringConvertible {
    public var person: String
    public var device: MACAddress
    public var userIndex: UInt8
    /// What the device said (`userNotAuthorized`, `unknownUser`, `userDataRewound`, …).
    public var error: DeviceError

    /// One line naming the device, the person and what to do; never the consent code.
    public var description: String {
        let again = "vitalbridge people enroll \(person) --mac \(device) --user-index \(userIndex) --consent CODE"
        let what =
            switch error.code {
            case .userNotAuthorized:
                "the device refused \(person)'s consent code (user \(userIndex)): if \(person) changed it on the device, "
                    + "enrol again with the new one (\(again)); if the user is someone else now, end the enrolment "
                    + "(vitalbridge people forget \(person) --mac \(device))"
            case .unknownUser:
                "the device has no user \(userIndex) any more (\(person)'s, deleted on the device?): end the enrolment "
                    + "(vitalbridge people forget \(person) --mac \(device)) and enrol \(person) again"
            case .userDataRewound:
                "\(person)'s data on the device (user \(userIndex)) are older than what the hub wrote: the device was "
                    + "reset or \(person) registered again; check the device and enrol \(person) again (\(again))"
            default: "\(person) (user \(userIndex)): \(error.message)"
            }
        return "\(device): \(what)"
    }
}

/// Each enrolled person's records of a device, after its records of no user: the part of a sync that consents.
struct EnrolledSync {
    let store: VitalStore
    let now: @Sendable () -> Timestamp
    let logger: Logger

    /// Consents as each person enrolled on `mac`, in turn, storing what the device sends for them through `sink` and
    /// keeping what became of their data; a refusal does not stop the others'. Returns how many records were stored
    /// and who was refused. Nothing for a device nobody is enrolled on.
    ///
    /// - Throws: what the link or the store throws that is not a refusal of one person.
    func run(
        _ driver: any DeviceDriver, _ mac: MACAddress, into sink: any RecordSink,
        progress: @escaping @Sendable (SyncProgress) -> Void
    ) async throws -> (stored: Int, refusals: [UserRefusal]) {
        var stored = 0
        var refusals: [UserRefusal] = []
        for enrolment in try store.people.enrolments(on: mac) {
            let user = DeviceUser(enrolment)
            do {
                let synced = try await driver.sync(user: user, today: now().day, into: sink, progress: progress)
                stored += synced.stored
                try store.people.recordSync(
                    of: enrolment, changeIncrement: synced.reconciled.changeIncrement,
                    profileVersion: enrolment.profileVersion, adopted: synced.reconciled.adopted)
            } catch let error as DeviceError where Self.refuses(error.code) {
                let refusal = UserRefusal(
                    person: enrolment.person, device: mac, userIndex: enrolment.userIndex, error: error)
                // the person's name only: a log keeps no consent code and no health value
                logger.warning(
                    "a device refused to sync an enrolled person",
                    metadata: ["device": "\(mac)", "person": "\(enrolment.person)", "why": "\(error.code)"])
                refusals.append(refusal)
            }
        }
        return (stored, refusals)
    }

    /// Whether a sync of one person that failed with `code` leaves the others' to run: the device refused that
    /// person, and the link is still good.
    static func refuses(_ code: DeviceError.Code) -> Bool {
        [.userNotAuthorized, .unknownUser, .userDataRewound, .unsupported].contains(code)
    }
}

extension DeviceUser {
    /// The person of `enrolment`, as a sync consents as them.
    init(_ enrolment: Enrolment) {
        self.init(
            name: enrolment.person, userIndex: enrolment.userIndex, consentCode: enrolment.consentCode,
            changeIncrement: enrolment.changeIncrement, profile: enrolment.profile,
            profileChanged: enrolment.profileVersion != enrolment.writtenProfileVersion)
    }
}

/// What ``DeviceDesk/forget(_:on:)`` did.
public struct Forgotten: Hashable, Sendable, CustomStringConvertible {
    /// The enrolment that ended.
    public var enrolment: Enrolment
    /// How many records the hub stored first: the person's the device still held, and any of no user it sent
    /// meanwhile (a guest measuring as the hub consented).
    public var stored: Int
    /// Why the device let the hub neither read nor delete the person's user (no such user, or a code that is not
    /// theirs any more); `nil` when it deleted it.
    public var deviceRefused: DeviceError?

    /// `Bob is no longer user 2 of 004D3208D316: 1 record stored first, their data deleted on the device; their
    /// readings stay theirs`.
    public var description: String {
        let person = enrolment.person
        let device =
            deviceRefused.map { "the device refused them (\($0.message)): nothing deleted there" }
            ?? "\(stored) record\(stored == 1 ? "" : "s") stored first, their data deleted on the device"
        return "\(person) is no longer user \(enrolment.userIndex) of \(enrolment.device): \(device); their readings "
            + "stay theirs"
    }
}

/// What ``DeviceDesk/enroll(_:on:userIndex:consentCode:)`` did.
public struct Enrolled: Hashable, Sendable, CustomStringConvertible {
    public var person: String
    public var device: MACAddress
    public var userIndex: UInt8
    /// How the person became the device's user.
    public var way: Way
    /// The consent code the hub chose for a new user, shown to the person once; `nil` when the person gave it.
    public var chosenConsentCode: UInt16?
    /// How many readings of the index in quarantine became the person's.
    public var released: Int
    /// Whether the person's data on the device were newer than the home's and became theirs.
    public var adoptedDeviceData: Bool

    /// Who the person is on the device, and a chosen consent code on a line of its own: `Ann is user 3 of
    /// 004D3208D316: registered as a new user` / `consent code: 4242 (shown once: the device may ask for it)`.
    public var description: String {
        let what =
            switch way {
            case .registered: "registered as a new user"
            case .claimed: "claimed with its consent code"
            case .checked: "enrolled already: the device accepted the consent code"
            }
        return "\(person) is user \(userIndex) of \(device): \(what)"
            + (released > 0 ? "; \(released) reading\(released == 1 ? "" : "s") released" : "")
            + (adoptedDeviceData ? "; the device's data of \(person) were newer and are the home's now" : "")
            + (chosenConsentCode.map { "\nconsent code: \($0) (shown once: the device may ask for it)" } ?? "")
    }

    public enum Way: Hashable, Sendable {
        /// Registered as a new user of the device.
        case registered
        /// Claimed a user already on the device with its consent code.
        case claimed
        /// Enrolled already: the device accepted the consent code again.
        case checked
    }
}

extension DeviceDesk {
    /// Enrols `person` on device `mac`, which has a User Data Service:
    /// - with `userIndex`, claims the user already on the device with that index by consenting with `consentCode`;
    /// - without, registers a new user with `consentCode` (one the hub chooses when `nil`, 0–9999);
    /// - for a person enrolled on the device already, consents again (with `consentCode` when given, which then
    ///   replaces the one the home keeps), to check the enrolment.
    ///
    /// After the consent the person's data are settled with the device's as a sync settles them, the hub's last
    /// write taken as unknown (claimed, checked) or as none (registered): the home's data win when it has any, else
    /// the device's are adopted. Then the index is the person's: its readings in quarantine are released.
    ///
    /// - Throws: ``DeviceDeskError`` with ``DeviceDeskError/Code/refused`` for an unknown person, a person enrolled
    ///   under another index, or a device that refuses (wrong code, no such user, no free slot): nothing is
    ///   assigned then; ``DeviceDeskError/Code/unsupported`` for a device without a User Data Service.
    public func enroll(
        _ person: String, on mac: MACAddress, userIndex: UInt8?, consentCode: UInt16?
    ) async throws(DeviceDeskError) -> Enrolled {
        let known = try knownDevice(mac)
        let (people, enrolled) = try refusingStore(mac) { () throws(StoreError) in
            (try store.people.all(), try store.people.enrolments(on: mac).first { $0.person == person })
        }
        guard
            let (profile, version) = people.first(where: { $0.name == person }).map({ ($0.profile, $0.profileVersion) })
        else {
            throw DeviceDeskError(.refused, "the home has no person named \(person) (vitalbridge people add \(person))")
        }
        if let enrolled, let userIndex, userIndex != enrolled.userIndex {
            throw DeviceDeskError(
                .refused,
                "\(person) is user \(enrolled.userIndex) of \(mac) already (vitalbridge people forget \(person) --mac "
                    + "\(mac) ends it)")
        }
        let way: Enrolled.Way = enrolled != nil ? .checked : userIndex != nil ? .claimed : .registered
        // an index someone of the home holds is refused before the device is asked anything (a registered one, once
        // the device gave it: the new user is deleted again)
        let homePeople = store.people
        let holder: @Sendable (UInt8) -> String? = { index in
            guard enrolled == nil else { return nil }
            return try? homePeople.all().first { other in
                other.assignments.contains { $0.device == mac && $0.userIndex == index && $0.until == nil }
            }?.name
        }
        if let userIndex, let other = holder(userIndex) {
            throw DeviceDeskError(.refused, "user \(userIndex) of \(mac) is \(other)'s already: nothing was assigned")
        }
        let code = consentCode ?? enrolled?.consentCode ?? DeviceUser.randomConsentCode()
        let now = now()
        let done = try await withConnection(known, doing: "enrol \(person)") { connection in
            guard let users = try await UserDataClient(connection) else {
                throw DeviceError(.unsupported, message: "it has no User Data Service to enrol a person on")
            }
            do {
                return try await users.enrol(
                    person, userIndex: userIndex ?? enrolled?.userIndex, consentCode: code, profile: profile,
                    today: now.day
                ) { index throws(DeviceError) in
                    if let other = holder(index) {
                        throw DeviceError(.unknownUser, message: "the device gave user \(index), which is \(other)'s")
                    }
                }
            } catch let error as DeviceError where [.userNotAuthorized, .unknownUser, .noFreeUser].contains(error.code)
            {
                throw DeviceDeskError(.refused, "\(mac): \(error.message): nothing was assigned to \(person)")
            }
        }
        let (index, reconciled) = (done.userIndex, done.reconciled)
        // one transaction each: a hub killed before it commits has enrolled no one
        let released = try refusingStore(mac) { () throws(StoreError) in
            guard let enrolled else {
                // a new user has no readings of before: their span starts now
                return try store.people.enroll(
                    person, device: mac, userIndex: index, consentCode: code,
                    changeIncrement: reconciled.changeIncrement, profileVersion: version, adopted: reconciled.adopted,
                    since: way == .registered ? now : nil)
            }
            try store.people.recordSync(
                of: enrolled, changeIncrement: reconciled.changeIncrement, profileVersion: version,
                adopted: reconciled.adopted, consentCode: code)
            return 0
        }
        return Enrolled(
            person: person, device: mac, userIndex: index, way: way,
            chosenConsentCode: way == .registered && consentCode == nil ? code : nil, released: released,
            adoptedDeviceData: reconciled.adopted != nil)
    }

    /// Ends `person`'s enrolment on device `mac`: consents as them, stores their records the device still holds (a
    /// sync of them, as every sync takes them), deletes their data on the device (Delete User Data, which frees the
    /// slot and the records with it), then ends the enrolment at the hub's time: their readings stay theirs, and a
    /// reading the device later reports under the index is no one's. A device that no longer has the user, or
    /// refuses their consent code (the slot is someone else's now), has nothing of theirs the hub may read or delete:
    /// the enrolment ends all the same, and ``Forgotten/deviceRefused`` says so.
    ///
    /// - Throws: ``DeviceDeskError/Code/refused`` when the person is not enrolled on the device.
    public func forget(_ person: String, on mac: MACAddress) async throws(DeviceDeskError) -> Forgotten {
        let known = try knownDevice(mac)
        guard
            let enrolment = try refusingStore(
                mac,
                { () throws(StoreError) in
                    try store.people.enrolments(on: mac).first { $0.person == person }
                })
        else { throw DeviceDeskError(.refused, "\(person) is not enrolled on \(mac)") }
        let (sink, now) = (StoreSink(store: store, device: mac), now)
        let done = try await withDriver(known, doing: "forget \(person)") { driver -> Forgotten in
            do {
                let stored = try await driver.forget(user: DeviceUser(enrolment), today: now().day, into: sink)
                return Forgotten(enrolment: enrolment, stored: stored)
            } catch let error as DeviceError where [.unknownUser, .userNotAuthorized].contains(error.code) {
                return Forgotten(enrolment: enrolment, stored: 0, deviceRefused: error)
            }
        }
        let end = now()
        try refusingStore(mac) { () throws(StoreError) in
            _ = try store.people.endEnrolment(of: person, on: mac, at: end)
        }
        return done
    }

    /// `body`'s result; a store error becomes the desk's, naming the device.
    private func refusingStore<T>(_ mac: MACAddress, _ body: () throws(StoreError) -> T) throws(DeviceDeskError) -> T {
        do {
            return try body()
        } catch {
            throw DeviceDeskError(error.code == .failed ? .refused : .store, "\(mac): \(error.message)")
        }
    }

}
