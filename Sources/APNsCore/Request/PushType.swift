/// The `apns-push-type` header, with the topic suffix and priority rules each type carries.
///
/// An open set modelled as a struct over a private enum, so types Apple adds later can be added
/// without breaking callers. `mdm` is absent: it needs certificate authentication (see
/// ``certificateOnlyHeaderValues``).
public struct PushType: Hashable, Sendable, CustomStringConvertible {
    private enum Kind: String, CaseIterable {
        case alert, background, location, voip, complication, fileprovider, liveactivity, pushtotalk, widgets, controls
    }

    private let kind: Kind

    public static let alert = PushType(kind: .alert)
    public static let background = PushType(kind: .background)
    public static let location = PushType(kind: .location)
    public static let voip = PushType(kind: .voip)
    public static let complication = PushType(kind: .complication)
    public static let fileProvider = PushType(kind: .fileprovider)
    public static let liveActivity = PushType(kind: .liveactivity)
    public static let pushToTalk = PushType(kind: .pushtotalk)
    public static let widgets = PushType(kind: .widgets)
    public static let controls = PushType(kind: .controls)

    /// Every push type Herald can send.
    public static let all: [PushType] = Kind.allCases.map(PushType.init(kind:))

    /// Push types Apple accepts only on connections authenticated with a certificate, which Herald does not use.
    public static let certificateOnlyHeaderValues: Set<String> = ["mdm"]

    /// Parses the header value (`alert`, `voip`, …).
    public init?(headerValue: String) {
        guard let kind = Kind(rawValue: headerValue) else { return nil }
        self.kind = kind
    }

    private init(kind: Kind) { self.kind = kind }

    /// The `apns-push-type` value.
    public var headerValue: String { kind.rawValue }

    public var description: String { kind.rawValue }

    /// The suffix Apple requires after the bundle id in `apns-topic`; empty for alert and background.
    public var topicSuffix: String {
        switch kind {
        case .alert, .background: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// The payload size limit: 5120 bytes for VoIP, 4096 for everything else.
    public var payloadLimit: Int { kind == .voip ? 5120 : 4096 }

    /// Whether Apple refuses priority 10 for this type (background pushes must use 5).
    var requiresPowerConsideredPriority: Bool { kind == .background }

    /// The `apns-topic` for this type and an app's bundle id; a topic already carrying the suffix is kept.
    public func topic(forBundleID bundleID: String) -> String {
        let suffix = topicSuffix
        if suffix.isEmpty || bundleID.hasSuffix(suffix) { return bundleID }
        return bundleID + suffix
    }
}

extension PushType: Codable {
    /// Decodes the header value; a name Apple does not define is a decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let type = PushType(headerValue: name) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "\"\(name)\" is not an APNs push type")
        }
        self = type
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(headerValue)
    }
}
