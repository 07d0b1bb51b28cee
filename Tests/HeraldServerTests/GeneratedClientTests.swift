import Foundation
import HTTPTypes
import HeraldClient
import HeraldCore
import HeraldServer
import HeraldTesting
import Hummingbird
import HummingbirdTesting
import NIOCore
import OpenAPIRuntime
import Postgres
import Synchronization
import Testing

/// The Swift client generated from openapi.yaml (`HeraldClient`) holds the contract in Swift on every build: its
/// operations are exactly the router's routes.
@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct GeneratedClientTests {
    /// Takes the operations the generated code registers, as a server framework would.
    final class RecordingServerTransport: ServerTransport {
        let registered = Mutex<Set<String>>([])

        func register(
            _ handler:
                @escaping @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (
                    HTTPResponse, HTTPBody?
                ), method: HTTPRequest.Method, path: String
        ) throws {
            registered.withLock { _ = $0.insert("\(method.rawValue) \(path)") }
        }
    }

    /// A transport that is never called: the test only registers operations.
    struct UnusedTransport: ClientTransport {
        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
            HTTPResponse, HTTPBody?
        ) {
            Issue.record("no request was meant to be sent (\(operationID))")
            return (HTTPResponse(status: .internalServerError), nil)
        }
    }

    @Test func theGeneratedOperationsAreExactlyTheRoutersRoutes() async throws {
        let harness = try await APIHarness.make()
        defer { harness.client.shutdown() }
        let transport = RecordingServerTransport()
        let client = Client(serverURL: URL(string: "http://127.0.0.1")!, transport: UnusedTransport())
        try client.registerHandlers(on: transport)
        let generated = transport.registered.withLock { $0 }
        let router = HeraldApplication.router(settings: harness.settings, services: harness.services)
        let served = Set(router.routes.map { "\($0.method.rawValue) \($0.path)" })
        #expect(generated.count == served.count)
        #expect(served.subtracting(generated).isEmpty, "not generated: \(served.subtracting(generated).sorted())")
        #expect(generated.subtracting(served).isEmpty, "not served: \(generated.subtracting(served).sorted())")
    }

    /// Carries the generated client's requests to the test server.
    struct TestServerTransport: ClientTransport {
        let client: any TestClientProtocol

        func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String) async throws -> (
            HTTPResponse, HTTPBody?
        ) {
            var bytes: Data?
            if let body { bytes = try await Data(collecting: body, upTo: 1 << 20) }
            let response = try await client.executeRequest(
                uri: request.path ?? "/", method: request.method, headers: request.headerFields,
                body: bytes.map { ByteBuffer(bytes: $0) })
            return (
                HTTPResponse(status: response.status, headerFields: response.headers),
                HTTPBody(Array(response.body.readableBytesView))
            )
        }
    }

    /// The generated client against a live Herald: an admin registers a user, the user a device, and a send key
    /// posts an event; refusals come back as the document's typed answers.
    @Test func theGeneratedClientTalksToHerald() async throws {
        let harness = try await APIHarness.make()
        try await harness.run { api in
            func client(_ credential: String) -> Client {
                Client(
                    serverURL: URL(string: "http://127.0.0.1")!, transport: TestServerTransport(client: api.client),
                    middlewares: [BearerAuthentication(credential: credential)])
            }
            let admin = client(harness.keys[.admin]!)
            let user = try await admin.putUser(
                path: .init(userId: "ada"), body: .json(.init(email: "ada@example.com", name: "Ada")))
            guard case .created = user else {
                Issue.record("expected 201, got \(user)")
                return
            }
            let device = try await client(try harness.userToken("ada")).registerDevice(
                body: .json(.init(token: DeviceAPITests.hexToken(), platform: .iOS)))
            guard case .created(let created) = device else {
                Issue.record("expected 201, got \(device)")
                return
            }
            #expect(try created.body.json.isActive == true)
            let project = try await admin.putProject(
                path: .init(projectId: "p"), body: .json(.init(name: "P", ownerId: "ada")))
            guard case .created = project else {
                Issue.record("expected 201, got \(project)")
                return
            }
            let event = try await client(harness.keys[.send]!).postEvent(
                body: .json(
                    .init(_type: .newFeedback, projectId: "p", feedback: .init(id: "f-1", title: "Dark mode"))))
            guard case .accepted(let accepted) = event else {
                Issue.record("expected 202, got \(event)")
                return
            }
            #expect(!(try accepted.body.json.id).isEmpty)
            let refused = try await client("hk_not_a_key").listLogs()
            guard case .unauthorized = refused else {
                Issue.record("expected 401, got \(refused)")
                return
            }
        }
    }

    @Test func credentialsNeverShowInTheMiddlewaresDescription() {
        let middleware = BearerAuthentication(credential: "hk_secret")
        #expect(!"\(middleware)".contains("hk_secret"))
    }
}
