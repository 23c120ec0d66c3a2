import HealthGATT

// The JSON forms of the User Data Service (0x181C): its control point, the user index and change increment, and the
// user data a scale or monitor keeps.

public struct UserControlPointJSON: Encodable, Sendable {
    var opCode: String
    var requestOpCode, responseValue: String?
    var userIndex: UInt8?
    var consentCode: UInt16?
    var numberOfUsers: UInt8?
}

extension UserControlPoint: JSONRepresentable {
    public var json: UserControlPointJSON {
        guard let (request, value) = answer else {
            return switch self {
            case .registerNewUser(let code): UserControlPointJSON(opCode: "register new user", consentCode: code)
            case .consent(let index, let code):
                UserControlPointJSON(opCode: "consent", userIndex: index, consentCode: code)
            case .deleteUser(let index): UserControlPointJSON(opCode: "delete user", userIndex: index)
            default: UserControlPointJSON(opCode: UCPOpCode(rawValue: encoded()[0]).description)
            }
        }
        var body = UserControlPointJSON(
            opCode: UCPOpCode.responseCode.description, requestOpCode: request.description,
            responseValue: value.description)
        switch self {
        case .newUserRegistered(let index), .userDeleted(let index): body.userIndex = index
        case .usersListed(let count): body.numberOfUsers = count
        default: break
        }
        return body
    }
}

public struct UserIndexJSON: Encodable, Sendable {
    var userIndex: UInt8
    var unknownUser: Bool
}

extension UserIndex: JSONRepresentable {
    public var json: UserIndexJSON {
        UserIndexJSON(userIndex: index, unknownUser: index == UserDataService.unknownUser)
    }
}

public struct DatabaseChangeIncrementJSON: Encodable, Sendable {
    var databaseChangeIncrement: UInt32
}

extension DatabaseChangeIncrement: JSONRepresentable {
    public var json: DatabaseChangeIncrementJSON { DatabaseChangeIncrementJSON(databaseChangeIncrement: value) }
}

public struct FirstNameJSON: Encodable, Sendable {
    var firstName: String
}

extension FirstName: JSONRepresentable {
    public var json: FirstNameJSON { FirstNameJSON(firstName: text) }
}

public struct AgeJSON: Encodable, Sendable {
    var unit = "years"
    var age: UInt8
}

extension Age: JSONRepresentable {
    public var json: AgeJSON { AgeJSON(age: years) }
}

public struct DateOfBirthJSON: Encodable, Sendable {
    var year: UInt16
    var month, day: UInt8
}

extension DateOfBirth: JSONRepresentable {
    public var json: DateOfBirthJSON { DateOfBirthJSON(year: year, month: month, day: day) }
}

public struct GenderJSON: Encodable, Sendable {
    var gender: String
}

extension Gender: JSONRepresentable {
    public var json: GenderJSON { GenderJSON(gender: words(self)) }
}

public struct UserHeightJSON: Encodable, Sendable {
    var unit = "m"
    var height: GATTNumber
}

extension Height: JSONRepresentable {
    public var json: UserHeightJSON { UserHeightJSON(height: decimal(Int(centimetres), -2)) }
}

public struct UserWeightJSON: Encodable, Sendable {
    var unit = "kg"
    var weight: NumberOrText
}

extension UserWeight: JSONRepresentable {
    public var json: UserWeightJSON { UserWeightJSON(weight: massNumber(weight, .si)) }
}
