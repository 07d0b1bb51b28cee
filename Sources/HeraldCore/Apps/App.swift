public import Foundation

/// One of the backend's apps: a bundle id on one Apple team, with the APNs environment its devices use when they
/// name none. Pushes for its devices go out with `apns-topic` = the bundle id, signed by a key of its team.
public struct App: Sendable, Equatable {
    public var id: UUID
    public var externalID: ExternalID
    public var name: String
    public var bundleID: String
    public var teamID: String
    public var defaultEnvironment: PushEnvironment
    /// The app of registrations and sends that name none.
    public var isDefault: Bool
    /// Its part of the engine's claims while other apps have work too, relative to theirs (``ClaimShares``).
    public var deliveryWeight: Int
    public var createdAt: Date
    public var updatedAt: Date
}

/// What `PUT /api/v1/apps/{appId}` and `herald apps create` set, each field checked and named when wrong.
public struct AppDefinition: Sendable, Equatable {
    public var name: String
    public var bundleID: String
    public var teamID: String
    public var defaultEnvironment: PushEnvironment
    /// 1 to 1000; see ``App/deliveryWeight``.
    public var deliveryWeight: Int

    /// The weights an app may have.
    public static let deliveryWeights = 1...1000

    /// - Throws: ``DomainError`` `.invalid` naming the field.
    public init(
        name: String, bundleID: String, teamID: String, defaultEnvironment: PushEnvironment, deliveryWeight: Int = 1
    ) throws(DomainError) {
        guard (1...256).contains(name.codePointCount), !name.containsControlOrLineBreak else {
            throw .invalid("must be 1 to 256 characters on one line", field: "name")
        }
        guard Self.isBundleID(bundleID) else {
            throw .invalid("must be a bundle id: 1 to 255 of A-Z a-z 0-9 . -", field: "bundleId")
        }
        guard Self.isAppleID(teamID) else { throw .invalid("must be 1 to 32 of A-Z a-z 0-9", field: "teamId") }
        guard Self.deliveryWeights.contains(deliveryWeight) else {
            throw .invalid("must be a whole number from 1 to 1000", field: "deliveryWeight")
        }
        self.name = name
        self.bundleID = bundleID
        self.teamID = teamID
        self.defaultEnvironment = defaultEnvironment
        self.deliveryWeight = deliveryWeight
    }

    /// A bundle id, which is also an APNs topic: 1 to 255 of `A-Z a-z 0-9 . -`.
    public static func isBundleID(_ text: String) -> Bool {
        (1...255).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            }
    }

    /// An Apple team id or key id: 1 to 32 of `A-Z a-z 0-9` (Apple's are 10).
    public static func isAppleID(_ text: String) -> Bool {
        (1...32).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
    }
}
