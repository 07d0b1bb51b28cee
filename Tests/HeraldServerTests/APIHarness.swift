import APNsCore
import Crypto
import Cryptography
import Foundation
import HTTPTypes
import HeraldCore
import HeraldServer
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Postgres
import Testing

/// A real Herald server on a free port over a fresh database, with credentials of every kind.
struct APIHarness: Sendable {
    let databaseURL: String
    let client: PostgresClient
    let services: HeraldServices
    var settings: ServerSettings
    let hmacSecret: [UInt8]
    let signingKey: P256PrivateKey
    let keys: [APIKeyScope: String]

    /// - Parameters:
    ///   - statementTimeout: The API sessions' `statement_timeout`, as `herald serve` sets it.
    ///   - interactionEvents: Where recorded interactions are reported, as to the outcome webhook.
    static func make(
        maxBodySize: Int = 64 * 1024, databaseSessions: Int = 10, statementTimeout: Duration? = nil,
        interactionEvents: (any DeliveryEventSink)? = nil
    ) async throws -> APIHarness {
        let url = try await TestDatabases.shared.heraldDatabase()
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        var configuration = try PostgresConfiguration(url)
        configuration.statementTimeout = statementTimeout
        let client = PostgresClient(
            configuration: configuration, options: .init(maximumConnections: databaseSessions), logger: logger)
        let expansion = ExpansionLoop(
            client: client, listenerConfiguration: try PostgresConfiguration(url), pollInterval: .milliseconds(200),
            logger: logger)
        let services = HeraldServices(client: client, expansion: expansion, interactionEvents: interactionEvents)
        let secret = Array(SecureRandom.bytes(count: 32))
        let signingKey = try P256PrivateKey(pem: P256.Signing.PrivateKey().pemRepresentation)
        var settings = ServerSettings()
        settings.port = 0
        settings.maxBodySize = maxBodySize
        settings.userTokens = UserTokenVerifier(
            hmacSecret: secret, publicKey: try P256PublicKey(pem: signingKey.publicKeyPEM))
        settings.openAPIDocument = OpenAPIDocument.load()
        var keys: [APIKeyScope: String] = [:]
        for scope in APIKeyScope.allCases {
            keys[scope] = try await services.keys.create(name: "\(scope.rawValue) key", scope: scope).secret
        }
        return APIHarness(
            databaseURL: url, client: client, services: services, settings: settings, hmacSecret: secret,
            signingKey: signingKey,
            keys: keys)
    }

    /// Runs `body` against the live server, then shuts everything down.
    func run(_ body: @Sendable (API) async throws -> Void) async throws {
        var logger = Logger(label: "test.server")
        logger.logLevel = .warning
        let app = HeraldApplication.make(settings: settings, services: services, logger: logger)
        defer { client.shutdown() }
        try await app.test(.live) { testClient in try await body(API(client: testClient, harness: self)) }
    }

    // MARK: Credentials

    struct Claims: Encodable {
        var sub: String
        var exp: Int
        var nbf: Int?
    }

    func userToken(_ user: String, expiresIn seconds: Int = 300) throws -> String {
        try JWT.encode(
            Claims(sub: user, exp: Int(Date().timeIntervalSince1970) + seconds), key: .hs256(secret: hmacSecret))
    }

    func es256Token(_ user: String, expiresIn seconds: Int = 300) throws -> String {
        try JWT.encode(Claims(sub: user, exp: Int(Date().timeIntervalSince1970) + seconds), key: .es256(signingKey))
    }

    func bearer(_ credential: String) -> HTTPFields { [.authorization: "Bearer \(credential)"] }
    func admin(actingFor user: String? = nil) -> HTTPFields {
        var fields = bearer(keys[.admin]!)
        if let user { fields[HTTPField.Name("X-Herald-User")!] = user }
        return fields
    }
    func user(_ id: String) throws -> HTTPFields { bearer(try userToken(id)) }

    // MARK: Database state

    func count(_ table: String) async throws -> Int {
        try await client.query("SELECT count(*) FROM \(identifier: table)").scalar(Int.self)
    }

    /// Row counts of every table a request could write.
    func snapshot() async throws -> [String: Int] {
        var result: [String: Int] = [:]
        for table in [
            "users", "projects", "project_members", "project_member_preferences", "device_tokens", "api_keys",
            "notifications", "idempotency_keys", "notification_suppressions", "deliveries",
        ] {
            result[table] = try await count(table)
        }
        let updates = try await client.query(
            "SELECT coalesce(max(updated_at)::text, '') FROM users"
        ).scalar(String.self)
        result["users.updated_at." + updates] = 1
        return result
    }

    /// Waits until the notification is expanded (the server's own loop does it).
    func waitForExpansion(_ id: String) async throws -> [String: Int] {
        let uuid = UUID(uuidString: id)!
        for _ in 0..<200 {
            if let status = try await services.notifications.status(uuid, in: .everyApp), status.state == "expanded" {
                return status.deliveries
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw CancellationError()
    }
}

/// The HTTP side: JSON requests with raw access to every answer.
struct API: Sendable {
    let client: any TestClientProtocol
    let harness: APIHarness

    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var text: String
        var json: JSONValue? { try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) }
        var error: String? { json?["error"]?.stringValue }
        var field: String? { json?["field"]?.stringValue }
    }

    @discardableResult
    func call(_ method: HTTPRequest.Method, _ uri: String, headers: HTTPFields = [:], json: String? = nil) async throws
        -> Answer
    {
        var headers = headers
        if json != nil { headers[.contentType] = "application/json" }
        let response = try await client.executeRequest(
            uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
        return Answer(status: response.status, headers: response.headers, text: String(buffer: response.body))
    }

    /// Calls `GET path` with a key of every scope and hands each answer to `check`, then expects a user token to be
    /// refused (403) and a call without credentials to be unauthenticated (401): what every reading route does.
    func expectEveryKeyReadsButNotUsers(
        _ path: String, check: (Answer, APIKeyScope) throws -> Void
    ) async throws {
        for scope in APIKeyScope.allCases {
            let answer = try await call(.get, path, headers: harness.bearer(harness.keys[scope]!))
            #expect(answer.status == .ok, "\(scope)")
            try check(answer, scope)
        }
        let bare = String(path.prefix { $0 != "?" })
        let user = try await call(.get, bare, headers: try harness.user("alice"))
        #expect(user.status == .forbidden)
        #expect(user.error == "forbidden")
        let none = try await call(.get, bare)
        #expect(none.status == .unauthorized)
    }
}
