import HealthGATT
import VitalCore

/// A person as the hub consents as them on a device with a User Data Service.
public struct DeviceUser: Hashable, Sendable {
    /// The person's name: what the device's First Name gets.
    public var name: String
    public var userIndex: UInt8
    /// The user's consent code, 0–9999. Never printed nor logged.
    public var consentCode: UInt16
    /// The Database Change Increment the hub last wrote to the device or read from it.
    public var changeIncrement: UInt32
    /// The person's data as the home has it.
    public var profile: PersonProfile
    /// Whether the home's data changed since the hub last wrote them to the device or read them from it.
    public var profileChanged: Bool

    public init(
        name: String, userIndex: UInt8, consentCode: UInt16, changeIncrement: UInt32, profile: PersonProfile,
        profileChanged: Bool
    ) {
        (self.name, self.userIndex, self.consentCode) = (name, userIndex, consentCode)
        (self.changeIncrement, self.profile, self.profileChanged) = (changeIncrement, profile, profileChanged)
    }
}

/// What the hub did with a user's data on the device after consenting as them (``UserDataClient/reconcile(_:today:)``).
public struct UserDataReconciled: Hashable, Sendable {
    /// The user's Database Change Increment on the device now: the hub keeps it.
    public var changeIncrement: UInt32
    /// The person's data with the device's in place of the home's, when the device's were newer and said something
    /// the home's did not: the person's data become them. What the device does not know (0, unspecified) keeps the
    /// home's value.
    public var adopted: PersonProfile?
}

/// The hub's side of a device's User Data Service (0x181C) over one connection: register, consent, read and write a
/// user's data, delete it. Every User Control Point request waits for the device's indicated answer.
///
/// **Which data wins** (``reconcile(_:today:)``): after consenting as a person, the hub reads the user's Database
/// Change Increment. Equal to the one it last wrote or read: the device's data are the home's, and the home's are
/// written again only if they changed since, with the increment plus one. Larger: the user's data changed on the
/// device (typed on it, or by another app); they are read back and become the person's, unless the home's changed
/// too since the hub last wrote them: then the home's win, written with the device's increment plus one — what a
/// person typed into the hub is what they meant. Smaller: the device forgot what the hub wrote (it was reset, or the
/// user registered again), and nothing is read or written: ``DeviceError/Code/userDataRewound``.
public struct UserDataClient: Sendable {
    let connection: any BluetoothConnection

    /// The client of the device on `connection`, with the User Control Point's indications enabled; `nil` when the
    /// device has no User Data Service.
    public init?(_ connection: any BluetoothConnection) async throws(DeviceError) {
        guard await connection.offers(GATTCharacteristics.userControlPoint) else { return nil }
        try await connection.subscribe(GATTCharacteristics.userControlPoint)
        self.connection = connection
    }

    /// How long a User Control Point request waits for the device's answer.
    static let answerWait: Duration = .seconds(10)

    /// Registers a new user with `consentCode`; returns the index the device gave them.
    /// - Throws: ``DeviceError/Code/noFreeUser`` when the device has no free slot.
    public func register(consentCode: UInt16) async throws(DeviceError) -> UInt8 {
        switch try await request(.registerNewUser(consentCode: consentCode)) {
        case .newUserRegistered(let index): return index
        case .response(_, .operationFailed):
            throw DeviceError(.noFreeUser, message: "the device has no free user slot")
        case let answer: throw refused(answer)
        }
    }

    /// Consents as user `userIndex` with `consentCode`: the device then lets the hub read and write the user's data
    /// and sends the user's stored measurements. `meanwhile` takes what else the device sends before its answer (as
    /// ``Meanwhile`` says).
    /// - Throws: ``DeviceError/Code/userNotAuthorized`` for a code that is not the user's,
    ///   ``DeviceError/Code/unknownUser`` for an index the device does not have.
    public func consent(
        userIndex: UInt8, consentCode: UInt16, meanwhile: Meanwhile? = nil
    ) async throws(DeviceError) {
        let command = UserControlPoint.consent(userIndex: userIndex, consentCode: consentCode)
        switch try await request(command, meanwhile: meanwhile) {
        case .response(.consent, .success): return
        case .response(.consent, .userNotAuthorized):
            throw DeviceError(.userNotAuthorized, message: "the device refused the consent code of user \(userIndex)")
        case .response(.consent, .invalidParameter):
            throw DeviceError(.unknownUser, message: "the device has no user \(userIndex)")
        case let answer: throw refused(answer)
        }
    }

    /// Deletes the data of the user consented as (the device frees their slot). `meanwhile` takes what else the
    /// device sends before its answer (as ``Meanwhile`` says).
    public func deleteUserData(meanwhile: Meanwhile? = nil) async throws(DeviceError) {
        switch try await request(.deleteUserData, meanwhile: meanwhile) {
        case .response(.deleteUserData, .success): return
        case let answer: throw refused(answer)
        }
    }

    /// Settles which data the user consented as keeps, the home's or the device's (the rule in the type's
    /// documentation), writing the home's when they win.
    public func reconcile(_ user: DeviceUser, today: CalendarDate) async throws(DeviceError) -> UserDataReconciled {
        let increment = try await changeIncrement()
        guard increment >= user.changeIncrement else {
            throw DeviceError(
                .userDataRewound,
                message: "user \(user.userIndex)'s data on the device are older than what the hub wrote (change "
                    + "increment \(increment), the hub wrote \(user.changeIncrement))")
        }
        if increment > user.changeIncrement, !user.profileChanged {
            return UserDataReconciled(
                changeIncrement: increment, adopted: try await adopted(over: user.profile, today: today))
        }
        guard user.profileChanged else { return UserDataReconciled(changeIncrement: increment) }
        let next = increment &+ 1
        try await write(user, today: today)
        try await connection.write(GATTCharacteristics.databaseChangeIncrement, DatabaseChangeIncrement(next).encoded())
        return UserDataReconciled(changeIncrement: next)
    }

    /// Makes the person named `name` a user of the device: the user `userIndex` already there (consenting with
    /// `consentCode`), or a new one registered with it when `userIndex` is `nil`. Their data are then settled as
    /// ``reconcile(_:today:)`` settles them, with the device's current increment as the hub's last: a new user gets
    /// the home's data; a user already there keeps the home's when it has any, else the device's are adopted.
    /// Returns the user's index and what became of their data.
    /// - Throws: ``DeviceError/Code/noFreeUser``, ``DeviceError/Code/userNotAuthorized``,
    ///   ``DeviceError/Code/unknownUser``, and what the link throws.
    ///
    /// `accept` sees the index once consented, before anything is written: when it throws, a user just registered is
    /// deleted again (Delete User Data) and its error is thrown.
    public func enrol(
        _ name: String, userIndex: UInt8?, consentCode: UInt16, profile: PersonProfile, today: CalendarDate,
        accept: (UInt8) throws(DeviceError) -> Void = { _ in }
    ) async throws(DeviceError) -> (userIndex: UInt8, reconciled: UserDataReconciled) {
        let registering = userIndex == nil
        let index: UInt8
        if let userIndex { index = userIndex } else { index = try await register(consentCode: consentCode) }
        try await consent(userIndex: index, consentCode: consentCode)
        do {
            try accept(index)
        } catch {
            if registering { try await deleteUserData() }
            throw error
        }
        let increment = try await changeIncrement()
        let homeWins = registering || profile != PersonProfile()
        let user = DeviceUser(
            name: name, userIndex: index, consentCode: consentCode, changeIncrement: increment, profile: profile,
            profileChanged: homeWins)
        var reconciled = try await reconcile(user, today: today)
        if !homeWins, increment > 0 { reconciled.adopted = try await adopted(over: profile, today: today) }
        return (index, reconciled)
    }

    /// The Database Change Increment of the user consented as.
    func changeIncrement() async throws(DeviceError) -> UInt32 {
        try decode(DatabaseChangeIncrement.self, await connection.read(GATTCharacteristics.databaseChangeIncrement))
            .value
    }

    /// Writes the person's name and data to the user consented as, each the device has a characteristic for.
    func write(_ user: DeviceUser, today: CalendarDate) async throws(DeviceError) {
        let g = GATTCharacteristics.self
        var values: [(CharacteristicID, [UInt8])] = [(g.firstName, FirstName(user.name).encoded())]
        if let born = user.profile.born {
            let (year, month, day) = born.components
            values.append(
                (g.dateOfBirth, DateOfBirth(year: UInt16(year), month: UInt8(month), day: UInt8(day)).encoded()))
        }
        if let age = user.profile.age(on: today) { values.append((g.age, Age(years: UInt8(clamping: age)).encoded())) }
        if let sex = user.profile.sex { values.append((g.gender, Gender(sex).encoded())) }
        if let height = user.profile.heightCentimetres {
            values.append((g.height, Height(centimetres: UInt16(clamping: height)).encoded()))
        }
        for (characteristic, value) in values where await connection.offers(characteristic) {
            try await connection.write(characteristic, value)
        }
    }

    /// `home` with what the device knows of the user consented as in place of its values; `nil` when the device
    /// knows nothing the home does not have already.
    func adopted(over home: PersonProfile, today: CalendarDate) async throws(DeviceError) -> PersonProfile? {
        let merged = home.overlaid(with: try await readProfile(today: today))
        return merged == home ? nil : merged
    }

    /// The data of the user consented as, as a profile: what the device knows of them (0 and unspecified are
    /// unknown); a value the home would refuse (a date of birth in the future, a height out of range) is left out.
    func readProfile(today: CalendarDate) async throws(DeviceError) -> PersonProfile {
        let g = GATTCharacteristics.self
        var profile = PersonProfile()
        if await connection.offers(g.dateOfBirth) {
            let born = try decode(DateOfBirth.self, await connection.read(g.dateOfBirth))
            profile.born = CalendarDate(year: Int(born.year), month: Int(born.month), day: Int(born.day))
        }
        if await connection.offers(g.height) {
            let height = Int(try decode(Height.self, await connection.read(g.height)).centimetres)
            profile.heightCentimetres = height == 0 ? nil : height
        }
        if await connection.offers(g.gender) {
            profile.sex = PersonSex(try decode(Gender.self, await connection.read(g.gender)))
        }
        if let born = profile.born, PersonProfile(born: born).problem(today: today) != nil { profile.born = nil }
        if let height = profile.heightCentimetres, !PersonProfile.heights.contains(height) {
            profile.heightCentimetres = nil
        }
        return profile
    }

    /// What takes the events a device sends while the hub waits for a User Control Point's answer: a measurement
    /// indicated meanwhile must be stored and confirmed, as the device sends nothing more, its answer included,
    /// until it is confirmed.
    public typealias Meanwhile = (GATTEvent) async throws(DeviceError) -> Void

    /// Writes `command` to the User Control Point and returns the device's answer to it, confirmed. What else the
    /// device sends before it goes to `meanwhile`. Without one, the hub asks only while no measurement can be on its
    /// way (before subscribing to them): an indication of another characteristic is then not confirmed, so that the
    /// device keeps it, and the request fails.
    func request(_ command: UserControlPoint, meanwhile: Meanwhile? = nil) async throws(DeviceError)
        -> UserControlPoint
    {
        let point = GATTCharacteristics.userControlPoint
        try await connection.write(point, command.encoded())
        while let event = try await connection.nextEvent(within: Self.answerWait) {
            guard case .indication(point, let bytes, let token) = event else {
                if let meanwhile {
                    try await meanwhile(event)
                } else if case .indication = event {
                    throw DeviceError(
                        .protocolViolation,
                        message: "the device sent a measurement while the hub waited for the User Control Point")
                }
                continue
            }
            try await connection.confirm(token)
            let answer = try decode(UserControlPoint.self, bytes)
            guard let (request, _) = answer.answer, request.rawValue == command.encoded()[0] else {
                throw DeviceError(.protocolViolation, message: "the User Control Point answered another request")
            }
            return answer
        }
        throw DeviceError(.timedOut, message: "the User Control Point did not answer within 10 s")
    }

    private func refused(_ answer: UserControlPoint) -> DeviceError {
        let (request, value) = answer.answer ?? (UCPOpCode(rawValue: 0), UCPResponseValue(rawValue: 0))
        return DeviceError(.protocolViolation, message: "the device answered \(value) to \(request)")
    }
}

extension DeviceUser {
    /// A consent code for a new user, drawn from the system's random source: 0–9999.
    public static func randomConsentCode() -> UInt16 { UInt16.random(in: 0...UserDataService.maximumConsentCode) }
}

extension Gender {
    init(_ sex: PersonSex) {
        switch sex {
        case .female: self = .female
        case .male: self = .male
        case .unspecified: self = .unspecified
        }
    }
}

extension PersonSex {
    /// The sex a Gender says; `nil` for unspecified, which says nothing.
    init?(_ gender: Gender) {
        switch gender {
        case .female: self = .female
        case .male: self = .male
        case .unspecified: return nil
        }
    }
}
