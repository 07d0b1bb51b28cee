public import Foundation

/// A project of the backend: the audience of its events is its owner and its members.
public struct Project: Sendable, Equatable {
    public var id: UUID
    public var externalID: ExternalID
    public var name: String
    public var ownerID: ExternalID
    public var createdAt: Date
    public var updatedAt: Date
}
