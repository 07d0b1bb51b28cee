/// The `aps.sound` value: a sound file name, or the dictionary form for critical alerts.
public enum Sound: Hashable, Sendable, Codable {
    /// A sound in the app bundle, or `"default"`.
    case named(String)
    /// A critical alert sound, played even when muted; `volume` is 0…1.
    case critical(name: String, volume: Double)

    public static let `default` = Sound.named("default")

    private enum CodingKeys: String, CodingKey { case critical, name, volume }

    public init(from decoder: any Decoder) throws {
        if let name = try? decoder.singleValueContainer().decode(String.self) {
            self = .named(name)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self = .critical(
            name: try container.decode(String.self, forKey: .name),
            volume: try container.decodeIfPresent(Double.self, forKey: .volume) ?? 1)
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .named(let name):
            var container = encoder.singleValueContainer()
            try container.encode(name)
        case .critical(let name, let volume):
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(1, forKey: .critical)
            try container.encode(name, forKey: .name)
            try container.encode(volume, forKey: .volume)
        }
    }
}
