import Cryptography
import Foundation
import HeraldCore

/// The demo data `herald dev` sets up on every start (idempotent upserts): a demo user, a colleague who owns a
/// demo project the demo user is a member of, so the colleague's new feedback notifies the demo user.
enum DevDemo {
    static let userID = ExternalID("demo-user")!
    static let colleagueID = ExternalID("demo-colleague")!
    static let projectID = ExternalID("demo-project")!
    /// A made-up APNs device token for the printed registration command (apns-mock accepts any).
    static let deviceToken = String(repeating: "0123456789abcdef", count: 4)
    /// How long the printed user token is valid.
    static let userTokenLifetime: TimeInterval = 30 * 86400

    static func seed(_ directory: Directory) async throws {
        _ = try await directory.putUser(userID, profile: try UserProfile(email: "demo@example.com", name: "Demo User"))
        _ = try await directory.putUser(
            colleagueID, profile: try UserProfile(email: "colleague@example.com", name: "Demo Colleague"))
        _ = try await directory.putProject(projectID, name: "Demo Project", owner: colleagueID)
        _ = try await directory.putMember(project: projectID, user: userID)
    }

    private struct UserTokenClaims: Encodable {
        let sub: String
        let iat: Int
        let exp: Int
    }

    /// An HS256 user token for the demo user, as a backend would sign one with `HERALD_USER_JWT_SECRET`.
    static func userToken(secret: String, now: Date = Date()) throws -> String {
        let claims = UserTokenClaims(
            sub: userID.rawValue, iat: Int(now.timeIntervalSince1970),
            exp: Int(now.addingTimeInterval(userTokenLifetime).timeIntervalSince1970))
        return try JWT.encode(claims, key: .hs256(secret: Array(secret.utf8)))
    }
}
