import HealthGATT
import VitalCore
import VitalDevices

/// A device's User Data Service, validated from the fleet's `userData`: how many users it can keep and the users it
/// keeps when the world first sees it.
public struct SimulatedUserData: Hashable, Sendable {
    /// How many users the device can keep, 1–255: user indexes 0 to `slots` − 1.
    public let slots: Int
    /// The users registered on the device, by index.
    public let users: [SimulatedUser]

    init(_ script: UserDataScript, path: String) throws(FleetError) {
        guard (1...255).contains(script.slots) else {
            throw FleetError(path: path + ".slots", message: "must be from 1 to 255")
        }
        let users = try (script.users ?? []).enumerated().map { position, user throws(FleetError) in
            try SimulatedUser(user, path: path + ".users[\(position)]")
        }
        try Self.check(users, slots: script.slots, path: path + ".users")
        slots = script.slots
        self.users = users.sorted { $0.index < $1.index }
    }

    /// Checks that each of `users` (at `path`) has the index of one of `slots`, and that no two have the same.
    static func check(_ users: [SimulatedUser], slots: Int, path: String) throws(FleetError) {
        for (position, user) in users.enumerated() {
            guard Int(user.index) < slots else {
                throw FleetError(
                    path: path + "[\(position)].index", message: "must be from 0 to \(slots - 1) (the device's slots)")
            }
            guard !users[..<position].contains(where: { $0.index == user.index }) else {
                throw FleetError(path: path + "[\(position)].index", message: "repeats user index \(user.index)")
            }
        }
    }
}

/// A user a simulated device keeps in its User Data Service: the index and consent code a host consents with, the
/// user's data and its version (the Database Change Increment).
public struct SimulatedUser: Hashable, Sendable {
    /// The user index, 0–254.
    public var index: UInt8
    /// The consent code, 0–9999.
    public var consentCode: UInt16
    /// The First Name; empty when not set.
    public var firstName: String
    /// The date of birth, the height in centimetres and the sex (the Gender), each `nil` when not set.
    public var profile: PersonProfile
    /// The Age a host wrote, in years: read back while the date of birth is unknown; `nil` when none was.
    public var age: UInt8?
    /// The Database Change Increment.
    public var changeIncrement: UInt32

    public init(
        index: UInt8, consentCode: UInt16, firstName: String = "", profile: PersonProfile = PersonProfile(),
        age: UInt8? = nil, changeIncrement: UInt32 = 0
    ) {
        self.index = index
        self.consentCode = consentCode
        self.firstName = firstName
        self.profile = profile
        self.age = age
        self.changeIncrement = changeIncrement
    }

    /// The user of `script`, each value checked at `path`: an index from 0 to 254 (the device checks it against its
    /// slots), a consent code from 0 to 9999, a real date of birth, a height from 1 to 65535 cm, a sex of
    /// ``PersonSex``, a change increment from 0 to 4294967295.
    init(_ script: UserDataUserScript, path: String) throws(FleetError) {
        guard let index = UInt8(exactly: script.index), index != UserDataService.unknownUser else {
            throw FleetError(path: path + ".index", message: "must be a user index from 0 to 254")
        }
        guard let code = UInt16(exactly: script.consent), code <= UserDataService.maximumConsentCode else {
            throw FleetError(
                path: path + ".consent", message: "must be from 0 to \(UserDataService.maximumConsentCode)")
        }
        var profile = PersonProfile()
        if let born = script.born {
            // the Date of Birth carries years from 1582
            guard let date = CalendarDate(parsing: born), date.components.year >= 1582 else {
                throw FleetError(path: path + ".born", message: "is not a date yyyy-MM-dd from 1582-01-01")
            }
            profile.born = date
        }
        if let height = script.height {
            guard (1...Int(UInt16.max)).contains(height) else {
                throw FleetError(path: path + ".height", message: "must be from 1 to 65535 (centimetres)")
            }
            profile.heightCentimetres = height
        }
        if let sex = script.sex {
            guard let kept = PersonSex(rawValue: sex) else {
                throw FleetError(path: path + ".sex", message: "must be female, male or unspecified")
            }
            profile.sex = kept
        }
        guard let increment = UInt32(exactly: script.changeIncrement ?? 0) else {
            throw FleetError(path: path + ".changeIncrement", message: "must be from 0 to 4294967295")
        }
        self.init(
            index: index, consentCode: code, firstName: script.firstName ?? "", profile: profile,
            changeIncrement: increment)
    }

    /// The user as the fleet file (and a saved state) writes one; the Age a host wrote is the state's alone.
    var script: UserDataUserScript {
        UserDataUserScript(
            index: Int(index), consent: Int(consentCode), firstName: firstName.isEmpty ? nil : firstName,
            born: profile.born?.description, height: profile.heightCentimetres, sex: profile.sex?.rawValue,
            changeIncrement: Int(changeIncrement))
    }

    /// The Age the device reads on `day`: the whole years from the date of birth, else the Age a host wrote, else 0.
    func age(on day: CalendarDate) -> Age {
        guard let years = profile.age(on: day) else { return Age(years: age ?? 0) }
        return Age(years: UInt8(clamping: max(years, 0)))
    }

    /// The Date of Birth the device reads: 0000 00 00 when unknown.
    var dateOfBirth: DateOfBirth {
        guard let (year, month, day) = profile.born?.components else { return DateOfBirth(year: 0, month: 0, day: 0) }
        return DateOfBirth(year: UInt16(year), month: UInt8(month), day: UInt8(day))
    }

    /// The Gender the device reads: unspecified when not set.
    var gender: Gender {
        get {
            switch profile.sex {
            case .female: .female
            case .male: .male
            case .unspecified, nil: .unspecified
            }
        }
        set {
            profile.sex =
                switch newValue {
                case .female: .female
                case .male: .male
                case .unspecified: .unspecified
                }
        }
    }

    /// The Height the device reads: 0 when unknown.
    var height: Height { Height(centimetres: UInt16(clamping: profile.heightCentimetres ?? 0)) }
}

extension SimulatedDeviceConfiguration {
    /// The fleet's `userData` of `device`, checked: only a generic blood pressure monitor or weight scale keeps
    /// users.
    static func userData(of device: FleetDevice, model: DeviceModel, path: String) throws(FleetError)
        -> SimulatedUserData?
    {
        guard let script = device.userData else { return nil }
        guard [.bloodPressureMonitor, .weightScale].contains(model) else {
            throw FleetError(
                path: path + ".userData",
                message: "is not for a \(model.name): only a generic blood pressure monitor or weight scale keeps users"
            )
        }
        return try SimulatedUserData(script, path: path + ".userData")
    }
}
