import Foundation
import HeraldCore

/// The admin key `herald dev` prints. Each run makes a new one and revokes the keys of earlier runs first, so the
/// only working key with this name is the one printed last.
enum DevAPIKey {
    static let name = "herald dev"

    /// Revokes every unrevoked key named ``name``, then creates a new one.
    static func replace(in store: APIKeyStore) async throws -> CreatedAPIKey {
        for key in try await store.list() where key.name == name && key.revokedAt == nil {
            _ = try await store.revoke(key.id.uuidString)
        }
        return try await store.create(name: name, scope: .admin)
    }
}
