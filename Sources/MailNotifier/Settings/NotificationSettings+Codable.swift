import Foundation

extension NotificationSettings: Codable {
    private enum CodingKeys: String, CodingKey {
        case accountNotifications
        case categoryPreferences = "notifCategoryPreferences"
        case vipContacts, mutedThreadIds, quietHoursEnabled, quietHoursStart, quietHoursEnd, timeZone
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        let accounts = try container.decodeIfPresent([String: Bool].self, forKey: .accountNotifications) ?? [:]
        accountNotifications = Dictionary(
            uniqueKeysWithValues: accounts.map { (AccountID(rawValue: $0.key), $0.value) })
        // Category keys are case-insensitive; when two spellings disagree, "off" wins.
        let categories = try container.decodeIfPresent([String: Bool].self, forKey: .categoryPreferences) ?? [:]
        categoryPreferences = Dictionary(
            categories.map { (AICategory(rawValue: $0.key), $0.value) }, uniquingKeysWith: { $0 && $1 })
        vipContacts = Set(
            (try container.decodeIfPresent([String].self, forKey: .vipContacts) ?? []).map { $0.lowercased() })
        mutedThreadIds = Set(try container.decodeIfPresent([ThreadID].self, forKey: .mutedThreadIds) ?? [])
        quietHoursEnabled = try container.decodeIfPresent(Bool.self, forKey: .quietHoursEnabled) ?? false
        quietHoursStart = try Self.decodeMinute(container, .quietHoursStart)
        quietHoursEnd = try Self.decodeMinute(container, .quietHoursEnd)
        if let identifier = try container.decodeIfPresent(String.self, forKey: .timeZone) {
            guard let zone = TimeZone(identifier: identifier) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .timeZone, in: container,
                    debugDescription: SettingsError.unknownTimeZone(identifier).description)
            }
            timeZone = zone
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(
            Dictionary(uniqueKeysWithValues: accountNotifications.map { ($0.key.rawValue, $0.value) }),
            forKey: .accountNotifications)
        try container.encode(
            Dictionary(uniqueKeysWithValues: categoryPreferences.map { ($0.key.rawValue, $0.value) }),
            forKey: .categoryPreferences)
        try container.encode(vipContacts.sorted(), forKey: .vipContacts)
        try container.encode(mutedThreadIds.map(\.rawValue).sorted(), forKey: .mutedThreadIds)
        try container.encode(quietHoursEnabled, forKey: .quietHoursEnabled)
        try container.encodeIfPresent(quietHoursStart, forKey: .quietHoursStart)
        try container.encodeIfPresent(quietHoursEnd, forKey: .quietHoursEnd)
        // Absent unless the user named a zone: writing the machine's would pin it for good.
        try container.encodeIfPresent(timeZone?.identifier, forKey: .timeZone)
    }

    private static func decodeMinute(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws -> Int?
    {
        guard let minute = try container.decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard QuietHours.isValidMinute(minute) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: SettingsError.minuteOutOfRange(key: key.rawValue, value: minute).description)
        }
        return minute
    }
}
