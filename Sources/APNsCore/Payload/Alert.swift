/// The `aps.alert` dictionary: visible text, directly or through localization keys.
public struct Alert: Hashable, Sendable, Codable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    public var launchImage: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var subtitleLocKey: String?
    public var subtitleLocArgs: [String]?
    public var locKey: String?
    public var locArgs: [String]?

    public init(
        title: String? = nil, subtitle: String? = nil, body: String? = nil, launchImage: String? = nil,
        titleLocKey: String? = nil, titleLocArgs: [String]? = nil, subtitleLocKey: String? = nil,
        subtitleLocArgs: [String]? = nil, locKey: String? = nil, locArgs: [String]? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.launchImage = launchImage
        self.titleLocKey = titleLocKey
        self.titleLocArgs = titleLocArgs
        self.subtitleLocKey = subtitleLocKey
        self.subtitleLocArgs = subtitleLocArgs
        self.locKey = locKey
        self.locArgs = locArgs
    }

    enum CodingKeys: String, CodingKey {
        case title, subtitle, body
        case launchImage = "launch-image"
        case titleLocKey = "title-loc-key"
        case titleLocArgs = "title-loc-args"
        case subtitleLocKey = "subtitle-loc-key"
        case subtitleLocArgs = "subtitle-loc-args"
        case locKey = "loc-key"
        case locArgs = "loc-args"
    }

    /// Reads both forms Apple accepts: the dictionary, or a plain string, which is the body.
    public init(from decoder: any Decoder) throws {
        if let body = try? decoder.singleValueContainer().decode(String.self) {
            self.init(body: body)
            return
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            title: try container.decodeIfPresent(String.self, forKey: .title),
            subtitle: try container.decodeIfPresent(String.self, forKey: .subtitle),
            body: try container.decodeIfPresent(String.self, forKey: .body),
            launchImage: try container.decodeIfPresent(String.self, forKey: .launchImage),
            titleLocKey: try container.decodeIfPresent(String.self, forKey: .titleLocKey),
            titleLocArgs: try container.decodeIfPresent([String].self, forKey: .titleLocArgs),
            subtitleLocKey: try container.decodeIfPresent(String.self, forKey: .subtitleLocKey),
            subtitleLocArgs: try container.decodeIfPresent([String].self, forKey: .subtitleLocArgs),
            locKey: try container.decodeIfPresent(String.self, forKey: .locKey),
            locArgs: try container.decodeIfPresent([String].self, forKey: .locArgs))
    }
}
