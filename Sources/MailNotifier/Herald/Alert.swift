/// The visible text of a push.
public struct Alert: Hashable, Sendable, Codable {
    public var title: String?
    public var subtitle: String?
    public var body: String?

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
    }
}
