import HealthGATT
import VitalCore
import VitalDevices

/// The User Data Service (0x181C) of a generic blood pressure monitor or weight scale that keeps users (the fleet's
/// `userData`), as UDS 1.0 has it.
///
/// - The User Control Point (indications enabled first, else a write fails with ATT error 0xFD) registers a user in
///   the lowest free slot, consents a link as a user by index and consent code, and deletes the consented user's
///   data (the user, and the user's stored records); List All Users and Delete User are not supported. Every
///   request is answered by an indication on the control point.
/// - User Index reads the index the link consented as (255 before a consent); the Database Change Increment and the
///   user data (First Name, Age, Date of Birth, Gender, Height) are the consented user's, read and written only
///   after a consent (else ATT error 0x80). A write stores what it says: the host writes the Database Change
///   Increment itself after the data.
/// - Which stored records go out on a link follows from its consent (``Link/sends(_:)``).
struct UserDataServer {
    let runtime: DeviceRuntime

    /// The service in the GATT table, after the profile's.
    static let service: GATTServiceLayout = {
        let g = GATTCharacteristics.self
        return GATTServiceLayout(
            UserDataService.uuid,
            [
                (g.firstName, [.read, .write]), (g.age, [.read, .write]), (g.dateOfBirth, [.read, .write]),
                (g.gender, [.read, .write]), (g.height, [.read, .write]),
                (g.databaseChangeIncrement, [.read, .write, .notify]), (g.userIndex, .read),
                (g.userControlPoint, [.write, .indicate]),
            ])
    }()

    var users: [SimulatedUser] { runtime.state.users ?? [] }

    /// The user `link` consented as, if that user is still on the device.
    func consentedUser(on link: Link) -> SimulatedUser? {
        guard let index = link.consentedUser else { return nil }
        return users.first { $0.index == index }
    }

    /// The position of the user `link` consented as, or the error of an access to user data without a consent.
    private func consented(on link: Link, _ characteristic: CharacteristicID) throws(DeviceError) -> Int {
        guard let index = link.consentedUser, let position = users.firstIndex(where: { $0.index == index }) else {
            throw DeviceError.att(
                UserDataService.userDataAccessNotPermitted,
                "\(characteristic) before a consent: user data access not permitted")
        }
        return position
    }

    /// The value of `characteristic` for the central on `link`.
    func read(_ characteristic: CharacteristicID, on link: Link) throws(DeviceError) -> [UInt8] {
        let g = GATTCharacteristics.self
        switch characteristic {
        case g.userIndex: return UserIndex(link.consentedUser ?? UserDataService.unknownUser).encoded()
        case g.userControlPoint: throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be read")
        default: break
        }
        let user = users[try consented(on: link, characteristic)]
        switch characteristic {
        case g.databaseChangeIncrement: return DatabaseChangeIncrement(user.changeIncrement).encoded()
        case g.firstName: return FirstName(user.firstName).encoded()
        case g.age: return user.age(on: link.clock.wallTime.day).encoded()
        case g.dateOfBirth: return user.dateOfBirth.encoded()
        case g.gender: return user.gender.encoded()
        case g.height: return user.height.encoded()
        default: throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be read")
        }
    }

    /// Writes `value` to `characteristic` for the central on `link`; `true` when it was a Consent that succeeded.
    func write(_ characteristic: CharacteristicID, _ value: [UInt8], on link: Link) throws(DeviceError) -> Bool {
        let g = GATTCharacteristics.self
        switch characteristic {
        case g.userControlPoint: return try control(value, on: link)
        case g.userIndex: throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be written")
        default: break
        }
        let position = try consented(on: link, characteristic)
        func decoded<Value: GATTCharacteristic>(_ type: Value.Type) throws(DeviceError) -> Value {
            do {
                return try Value(bytes: value)
            } catch {
                throw DeviceError(.protocolViolation, message: "\(characteristic): \(error)")
            }
        }
        var user = users[position]
        switch characteristic {
        case g.databaseChangeIncrement: user.changeIncrement = try decoded(DatabaseChangeIncrement.self).value
        case g.firstName: user.firstName = try decoded(FirstName.self).text
        case g.age: user.age = try decoded(Age.self).years
        case g.dateOfBirth:
            let written = try decoded(DateOfBirth.self)
            if written == DateOfBirth(year: 0, month: 0, day: 0) {
                user.profile.born = nil
            } else {
                guard
                    let born = CalendarDate(
                        year: Int(written.year), month: Int(written.month), day: Int(written.day))
                else {
                    throw DeviceError(
                        .protocolViolation,
                        message:
                            "\(characteristic): the Date of Birth written is neither a day nor unknown (0000 00 00)")
                }
                user.profile.born = born
            }
        case g.gender: user.gender = try decoded(Gender.self)
        case g.height:
            let centimetres = try decoded(Height.self).centimetres
            user.profile.heightCentimetres = centimetres == 0 ? nil : Int(centimetres)
        default: throw DeviceError(.protocolViolation, message: "\(characteristic) cannot be written")
        }
        runtime.state.users?[position] = user
        return false
    }

    /// Runs the User Control Point request `value` and indicates its response; `true` when it was a Consent that
    /// succeeded.
    private func control(_ value: [UInt8], on link: Link) throws(DeviceError) -> Bool {
        let point = GATTCharacteristics.userControlPoint
        // a server answers a write with ATT error 0xFD unless the control point's indications are enabled
        guard link.subscribed.contains(point) else {
            throw DeviceError.att(
                DeviceError.cccdImproperlyConfigured,
                "indications of the User Control Point (\(point)) are not enabled", name: "CCCD improperly configured")
        }
        guard let opCode = value.first.map(UCPOpCode.init(rawValue:)) else {
            throw DeviceError(.protocolViolation, message: "an empty User Control Point request")
        }
        func respond(_ response: UserControlPoint) { link.indicate(point, response.encoded()) }
        func answer(_ response: UCPResponseValue) { respond(.response(request: opCode, value: response)) }
        // UDS 1.0: no List All Users, no Delete User, and a response is no request
        guard [.registerNewUser, .consent, .deleteUserData].contains(opCode) else {
            answer(.opCodeNotSupported)
            return false
        }
        guard let request = try? UserControlPoint(bytes: value) else {
            answer(.invalidParameter)
            return false
        }
        switch request {
        case .registerNewUser(let code):
            guard
                let free = (0..<runtime.configuration.userData!.slots).first(where: { slot in
                    !users.contains { $0.index == slot }
                })
            else {
                answer(.operationFailed)
                return false
            }
            let user = SimulatedUser(index: UInt8(free), consentCode: code)
            runtime.state.users = (users + [user]).sorted { $0.index < $1.index }
            respond(.newUserRegistered(userIndex: user.index))
        case .consent(let index, let code):
            guard let user = users.first(where: { $0.index == index }) else {
                answer(.invalidParameter)
                return false
            }
            guard user.consentCode == code else {
                answer(.userNotAuthorized)
                return false
            }
            link.consentedUser = index
            answer(.success)
            return true
        case .deleteUserData:
            guard let user = consentedUser(on: link) else {
                answer(.userNotAuthorized)
                return false
            }
            delete(user.index, on: link)
            link.consentedUser = nil
            answer(.success)
        default:
            answer(.opCodeNotSupported)
        }
        return false
    }

    /// Deletes user `index` and forgets the user's stored records; a transfer running on `link` goes on from the
    /// record it had reached.
    private func delete(_ index: UInt8, on link: Link) {
        runtime.state.users?.removeAll { $0.index == index }
        let records = runtime.state.records
        func theirs(_ record: StoredRecord) -> Bool { record.reading.annotations.userIndex == index }
        if var transfer = link.transfer {
            if transfer.position < records.count, theirs(records[transfer.position]) { transfer.part = 0 }
            transfer.position -= records.prefix(transfer.position).count(where: theirs)
            link.transfer = transfer
        }
        runtime.state.records.removeAll(where: theirs)
    }
}
