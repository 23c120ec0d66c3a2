import VitalCore

// The JSON forms of a device's User Data Service: the fleet's `userData`, and the users a saved state keeps.

extension UserDataScript {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let slots = try fields.int("slots") else { throw fields.missing("slots") }
        self.init(slots: slots, users: try fields.objects("users", UserDataUserScript.init(fields:)))
        try fields.finish()
    }

    var jsonValue: JSON {
        var members = JSONMembers()
        members["slots"] = .number(slots)
        members["users"] = users.map { .array($0.map(\.jsonValue)) }
        return members.object
    }
}

extension UserDataUserScript {
    init(fields: JSONFields) throws(FleetError) {
        var fields = fields
        guard let index = try fields.int("index") else { throw fields.missing("index") }
        guard let consent = try fields.int("consent") else { throw fields.missing("consent") }
        self.init(
            index: index, consent: consent, firstName: try fields.string("firstName"), born: try fields.string("born"),
            height: try fields.int("height"), sex: try fields.string("sex"),
            changeIncrement: try fields.int("changeIncrement"))
        try fields.finish()
    }

    var jsonValue: JSON { members.object }

    var members: JSONMembers {
        var members = JSONMembers()
        members["index"] = .number(index)
        members["consent"] = .number(consent)
        members["firstName"] = firstName.map(JSON.string)
        members["born"] = born.map(JSON.string)
        members["height"] = height.map(JSON.number)
        members["sex"] = sex.map(JSON.string)
        members["changeIncrement"] = changeIncrement.map(JSON.number)
        return members
    }
}

extension SimulatedUser {
    /// A user of a saved state: the members of a fleet's user, and `age`, the Age a host wrote (0–255). Whether its
    /// index is one of the device's slots is checked when the world takes the state.
    init(savedFields fields: JSONFields) throws(FleetError) {
        var fields = fields
        let age = try fields.int("age").map { years throws(FleetError) in
            guard let age = UInt8(exactly: years) else {
                throw FleetError(path: fields.path(of: "age"), message: "must be from 0 to 255")
            }
            return age
        }
        try self.init(UserDataUserScript(fields: fields), path: fields.path)
        self.age = age
    }

    var jsonValue: JSON {
        var members = script.members
        members["age"] = age.map { .number(Int($0)) }
        return members.object
    }
}
