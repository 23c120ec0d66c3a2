/// A person's sex as the User Data Service's Gender names it.
public enum PersonSex: String, CaseIterable, Hashable, Sendable {
    case female, male, unspecified
}

/// What a multi-user device may need to know about a person to measure them (a body-composition scale computes fat
/// and water from them): their date of birth, height and sex. Each is optional; a device gets what the home knows.
public struct PersonProfile: Hashable, Sendable {
    /// The date of birth.
    public var born: CalendarDate?
    /// The height in whole centimetres (the User Data Service's Height is in 0.01 m), 30–300.
    public var heightCentimetres: Int?
    public var sex: PersonSex?

    /// The heights a profile accepts, in centimetres.
    public static let heights = 30...300

    public init(born: CalendarDate? = nil, heightCentimetres: Int? = nil, sex: PersonSex? = nil) {
        self.born = born
        self.heightCentimetres = heightCentimetres
        self.sex = sex
    }

    /// The profile of a date of birth written `yyyy-MM-dd`, a height in centimetres and a sex by its name
    /// (``PersonSex``), as a person types them, checked for `today` (``problem(today:)``).
    /// - Throws: ``PersonProfileError`` naming the field that is wrong.
    public init(born: String?, heightCentimetres: Int?, sex: String?, today: CalendarDate) throws(PersonProfileError) {
        var profile = PersonProfile(heightCentimetres: heightCentimetres)
        if let born {
            guard let day = CalendarDate(parsing: born) else {
                throw PersonProfileError(message: "the date of birth \(born) is not a date written yyyy-MM-dd")
            }
            profile.born = day
        }
        if let sex {
            guard let value = PersonSex(rawValue: sex) else {
                throw PersonProfileError(message: "the sex \(sex) is not female, male or unspecified")
            }
            profile.sex = value
        }
        if let problem = profile.problem(today: today) { throw PersonProfileError(message: problem) }
        self = profile
    }

    /// Why this profile cannot be a person's on `today`, naming the field; `nil` when it can: a date of birth from
    /// 1900 to `today`, a height in ``heights``.
    public func problem(today: CalendarDate) -> String? {
        if let born, born > today || born.components.year < 1900 {
            return "the date of birth \(born) is not from 1900-01-01 to today (\(today))"
        }
        if let heightCentimetres, !Self.heights.contains(heightCentimetres) {
            return
                "the height \(heightCentimetres) cm is not from \(Self.heights.lowerBound) to \(Self.heights.upperBound) cm"
        }
        return nil
    }

    /// This profile with each value `newer` has in place of its own; what `newer` leaves out stays.
    public func overlaid(with newer: PersonProfile) -> PersonProfile {
        PersonProfile(
            born: newer.born ?? born, heightCentimetres: newer.heightCentimetres ?? heightCentimetres,
            sex: newer.sex ?? sex)
    }

    /// The person's age in whole years on `day`.
    public func age(on day: CalendarDate) -> Int? {
        guard let born else { return nil }
        let (birthYear, birthMonth, birthDay) = born.components
        let (year, month, dayOfMonth) = day.components
        return year - birthYear - ((month, dayOfMonth) < (birthMonth, birthDay) ? 1 : 0)
    }
}

extension PersonProfile: CustomStringConvertible {
    /// What the profile knows, as `vitalbridge people set` prints it: `born 1980-05-17, 168 cm, female`, or
    /// `nothing known`.
    public var description: String {
        let known = [born.map { "born \($0)" }, heightCentimetres.map { "\($0) cm" }, sex?.rawValue].compactMap { $0 }
        return known.isEmpty ? "nothing known" : known.joined(separator: ", ")
    }
}

/// Why a person's data cannot be taken: one line naming the field.
public struct PersonProfileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
