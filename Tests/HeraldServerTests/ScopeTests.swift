import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Testing

/// Key scopes nest: `read` reads, `send` also sends, `admin` also manages users and projects.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct ScopeTests {
    /// Scopes from least to most.
    static let ladder: [APIKeyScope] = [.read, .send, .admin]

    /// Routes API keys call, each with the least scope it needs. Ids that name nothing keep the calls harmless.
    static let routes: [(method: HTTPRequest.Method, path: String, needs: APIKeyScope)] = [
        (.get, "/api/v1/logs", .read),
        (.get, "/api/v1/stats", .read),
        (.get, "/api/v1/notifications/\(UUID())", .read),
        (.get, "/api/v1/notifications/\(UUID())/deliveries", .read),
        (.post, "/api/v1/events", .send),
        (.post, "/api/v1/notifications", .send),
        (.patch, "/api/v1/notifications/\(UUID())", .send),
        (.delete, "/api/v1/notifications/\(UUID())", .send),
        (.delete, "/api/v1/users/nobody", .admin),
        (.delete, "/api/v1/projects/nothing", .admin),
        (.delete, "/api/v1/projects/nothing/members/nobody", .admin),
    ]

    @Test(arguments: APIKeyScope.allCases)
    func aKeyMayCallWhatItsScopeOrALesserOneNeeds(scope: APIKeyScope) async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            let rank = try #require(Self.ladder.firstIndex(of: scope))
            for route in Self.routes {
                let answer = try await api.call(
                    route.method, route.path, headers: harness.bearer(harness.keys[scope]!), json: "{}")
                if rank >= Self.ladder.firstIndex(of: route.needs)! {
                    #expect(answer.status != .forbidden, "\(scope) \(route.method) \(route.path): \(answer.text)")
                } else {
                    #expect(answer.status == .forbidden, "\(scope) \(route.method) \(route.path)")
                    #expect(answer.text.contains("it needs scope \(route.needs.rawValue)"), "\(answer.text)")
                }
            }
        }
    }
}
