/// A user's daily quiet hours: pushes that fall due inside the window wait for its end (delivery state `deferred`).
public struct QuietHours: Sendable, Equatable {
    /// The window: minutes after local midnight in an IANA time zone; it may run overnight (`start` > `end`).
    public struct Window: Sendable, Equatable {
        public var start: Int
        public var end: Int
        public var timeZone: String
    }

    public var enabled: Bool
    public var window: Window

    /// What a refused zone name is told.
    static let zoneNameRule = "must be an IANA time zone such as Europe/Berlin, spelt as the tz database spells it"

    /// Whether `name` has the shape of a tz database zone name: letters first in each `/`-separated part, then
    /// letters, digits, `_`, `-` or `+`. A name without `/` has no digit or `+`: the database would read `UTC+3` or
    /// `EST5` as a POSIX rule (offsets counted westward) that IANA clients cannot read back. Legacy names of that
    /// shape (`EST5EDT`, `GMT+0`) have spellings with a `/` (`America/New_York`, `Etc/GMT`).
    static func isZoneName(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        return parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, first.isASCIILetter else { return false }
            return part.unicodeScalars.allSatisfy { scalar in
                if scalar.isASCIILetter || scalar == "_" || scalar == "-" { return true }
                return parts.count > 1 && (("0"..."9").contains(scalar) || scalar == "+")
            }
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

/// A change of quiet hours, as `PATCH /auth/notifications` gives it: turned on or off, with a new window or the
/// stored one.
public struct QuietHoursChange: Sendable, Equatable {
    public var enabled: Bool
    /// A new window; start, end and time zone are always given together.
    public var window: QuietHours.Window?

    /// - Throws: ``DomainError`` `.invalid` naming the field under `quietHours`.
    public init(enabled: Bool, start: Int?, end: Int?, timeZone: String?) throws(DomainError) {
        switch (start, end, timeZone) {
        case (nil, nil, nil):
            if enabled { throw .invalid("give start, end and timeZone to turn quiet hours on", field: "quietHours") }
            window = nil
        case (let start?, let end?, let timeZone?):
            for (minute, field) in [(start, "quietHours.start"), (end, "quietHours.end")]
            where !(0...1439).contains(minute) {
                throw .invalid("must be a minute of the day, 0 to 1439", field: field)
            }
            guard start != end else { throw .invalid("must differ from start", field: "quietHours.end") }
            guard (1...64).contains(timeZone.codePointCount), QuietHours.isZoneName(timeZone) else {
                throw .invalid(QuietHours.zoneNameRule, field: "quietHours.timeZone")
            }
            window = QuietHours.Window(start: start, end: end, timeZone: timeZone)
        default:
            throw .invalid("give start, end and timeZone together", field: "quietHours")
        }
        self.enabled = enabled
    }
}
