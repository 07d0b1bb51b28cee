import APNsCore
import HeraldCore

extension JSONObject {
    /// Apple's localization keys and arguments are names in the app's strings files: short, on one line. Sound names
    /// share the key's bound.
    static let maximumLocalizationKeyLength = 256
    static let maximumLocalizationArguments = 32
    static let maximumLocalizationArgumentLength = 1024

    /// An alert object, as direct sends and schedule changes take it: the visible `title`, `subtitle` and `body`,
    /// and Apple's localized forms (`titleLocKey`/`titleLocArgs`, `subtitleLocKey`/`subtitleLocArgs`,
    /// `locKey`/`locArgs`, `launchImage`), at least one text or key. Arguments need their key.
    func alert(_ key: String) throws(APIError) -> Alert? {
        guard let object = try object(key) else { return nil }
        try object.allowOnly([
            "title", "subtitle", "body", "titleLocKey", "titleLocArgs", "subtitleLocKey", "subtitleLocArgs", "locKey",
            "locArgs", "launchImage",
        ])
        let alert = Alert(
            title: try object.string("title"), subtitle: try object.string("subtitle"), body: try object.string("body"),
            launchImage: try object.localizationName("launchImage"),
            titleLocKey: try object.localizationName("titleLocKey"),
            titleLocArgs: try object.localizationArguments("titleLocArgs", of: "titleLocKey"),
            subtitleLocKey: try object.localizationName("subtitleLocKey"),
            subtitleLocArgs: try object.localizationArguments("subtitleLocArgs", of: "subtitleLocKey"),
            locKey: try object.localizationName("locKey"),
            locArgs: try object.localizationArguments("locArgs", of: "locKey"))
        if alert.title == nil, alert.subtitle == nil, alert.body == nil, alert.titleLocKey == nil,
            alert.subtitleLocKey == nil, alert.locKey == nil
        {
            throw .validation("give title, subtitle, body, titleLocKey, subtitleLocKey or locKey", field: field(key))
        }
        return alert
    }

    /// `aps.sound`: a sound file name, or `{"critical": 0|1, "name", "volume": 0…1}` (critical alerts play even when
    /// the device is muted, at `volume`, default 1).
    func sound(_ key: String) throws(APIError) -> Sound? {
        guard let value = present(key) else { return nil }
        if case .string(let name) = value { return .named(try Self.oneLineName(name, field: field(key))) }
        guard case .object = value else {
            throw .validation("must be a sound name or a sound object", field: field(key))
        }
        let object = try JSONObject(value, path: field(key))
        try object.allowOnly(["critical", "name", "volume"])
        let name = try Self.oneLineName(try object.requiredString("name"), field: object.field("name"))
        let critical = try object.integer("critical") ?? 1
        guard critical == 0 || critical == 1 else {
            throw .validation("must be 0 or 1", field: object.field("critical"))
        }
        let volume = try object.number("volume") ?? 1
        guard (0...1).contains(volume) else { throw .validation("must be 0 to 1", field: object.field("volume")) }
        return critical == 1 ? .critical(name: name, volume: volume) : .named(name)
    }

    /// A number, integer or not.
    func number(_ key: String) throws(APIError) -> Double? {
        switch present(key) {
        case nil: return nil
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: throw .validation("must be a number", field: field(key))
        }
    }

    /// A sound file or localization key name: 1 to 256 characters on one line.
    private static func oneLineName(_ name: String, field: String) throws(APIError) -> String {
        guard (1...maximumLocalizationKeyLength).contains(name.codePointCount), !name.containsControlOrLineBreak else {
            throw .validation("must be 1 to \(maximumLocalizationKeyLength) characters on one line", field: field)
        }
        return name
    }

    private func localizationName(_ key: String) throws(APIError) -> String? {
        guard let name = try string(key) else { return nil }
        return try Self.oneLineName(name, field: field(key))
    }

    private func localizationArguments(_ key: String, of localizationKey: String) throws(APIError) -> [String]? {
        guard let arguments = try stringArray(key, maximum: Self.maximumLocalizationArguments) else { return nil }
        guard members[localizationKey] != nil else {
            throw .validation("needs \(localizationKey)", field: field(key))
        }
        for (index, argument) in arguments.enumerated()
        where argument.codePointCount > Self.maximumLocalizationArgumentLength {
            throw .validation(
                "at most \(Self.maximumLocalizationArgumentLength) characters", field: "\(field(key))[\(index)]")
        }
        return arguments
    }
}
