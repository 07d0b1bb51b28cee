import Foundation
import HTTPTypes
public import HeraldClient
import OpenAPIRuntime

#if canImport(OpenAPIAsyncHTTPClient)
    import AsyncHTTPClient
    import NIOCore
    import NIOPosix
    import OpenAPIAsyncHTTPClient
    #if canImport(Glibc)
        import Glibc
    #endif
#elseif canImport(OpenAPIURLSession)
    import OpenAPIURLSession
#endif

/// Herald's id for an accepted notification.
public struct HeraldNotificationID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// The body of Herald's direct-send route, `POST /api/v1/notifications`, as the generated client types it.
public typealias DirectSend = Operations.SendNotification.Input.Body.JsonPayload

/// Herald's direct-send route, `POST /api/v1/notifications`, and the interactions the app reports with those
/// notifications, `GET /api/v1/interactions`, through the client generated from Herald's `openapi.yaml`:
/// over AsyncHTTPClient on Linux, over URLSession on Apple platforms.
///
/// Every call ends within the configured timeout: a gateway that accepts the connection but never
/// answers yields ``HeraldError/timeout(after:)``, one that refuses it ``HeraldError/unreachable(reason:)``.
public final class HeraldConnection: Sendable {
    public let configuration: HeraldClientConfiguration
    let client: Client
    #if canImport(OpenAPIAsyncHTTPClient)
        private let httpClient: HTTPClient
    #elseif canImport(OpenAPIURLSession)
        /// A session of its own configuration is released only once invalidated.
        private let session: URLSession
    #endif

    public init(configuration: HeraldClientConfiguration) {
        self.configuration = configuration
        let transport: any ClientTransport
        #if canImport(OpenAPIAsyncHTTPClient)
            let timeout = TimeAmount(configuration.timeout)
            var httpConfiguration = HTTPClient.Configuration()
            httpConfiguration.timeout.connect = timeout
            // A refused connection fails the request at once instead of being retried until the deadline, so it
            // reads as unreachable rather than as a timeout.
            httpConfiguration.connectionPool.retryConnectionEstablishment = false
            let httpClient = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: httpConfiguration)
            self.httpClient = httpClient
            transport = AsyncHTTPClientTransport(configuration: .init(client: httpClient, timeout: timeout))
        #elseif canImport(OpenAPIURLSession)
            let seconds = configuration.timeout / .seconds(1)
            let sessionConfiguration = URLSessionConfiguration.ephemeral
            sessionConfiguration.timeoutIntervalForRequest = seconds
            sessionConfiguration.timeoutIntervalForResource = seconds
            let session = URLSession(configuration: sessionConfiguration)
            self.session = session
            transport = URLSessionTransport(configuration: .init(session: session))
        #endif
        self.client = Client(
            serverURL: configuration.baseURL,
            configuration: .init(dateTranscoder: HeraldDateTranscoder()),
            transport: transport,
            middlewares: [
                BearerAuthentication(credential: configuration.apiKey.secret), RejectionMiddleware(),
            ])
    }

    deinit {
        #if canImport(OpenAPIAsyncHTTPClient)
            httpClient.shutdown { _ in }
        #elseif canImport(OpenAPIURLSession)
            session.invalidateAndCancel()
        #endif
    }

    /// Sends one notification.
    /// - Parameter idempotencyKey: lets Herald recognise a retry of a request it already accepted.
    /// - Returns: Herald's id for the notification (`202 {"id": …}`).
    @discardableResult
    public func send(_ body: DirectSend, idempotencyKey: String? = nil) async throws(HeraldError)
        -> HeraldNotificationID
    {
        guard body.hasTarget else {
            throw .invalidRequest(reason: "a notification needs userIds, deviceIds or projectId")
        }
        let client = client
        let output = try await perform {
            try await client.sendNotification(headers: .init(idempotencyKey: idempotencyKey), body: .json(body))
        }
        switch output {
        case .accepted(let accepted):
            guard case .json(let payload) = accepted.body else {
                throw .invalidResponse(status: 202, reason: "expected {\"id\": …}")
            }
            return HeraldNotificationID(rawValue: payload.id)
        case .undocumented(let status, _):
            throw .invalidResponse(status: status, reason: "an answer the API does not describe")
        default:
            // RejectionMiddleware turns every error status into HeraldError before the answer is decoded.
            throw .invalidResponse(status: 0, reason: "unexpected answer \(output)")
        }
    }

    /// Runs a call of the generated client against a deadline; whichever finishes first wins and the other is
    /// cancelled. Its errors become ``HeraldError``.
    func perform<Output: Sendable>(_ call: @escaping @Sendable () async throws -> Output) async throws(HeraldError)
        -> Output
    {
        let timeout = configuration.timeout
        do {
            return try await withThrowingTaskGroup(of: Output.self) { group in
                group.addTask { try await call() }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw HeraldError.timeout(after: timeout)
                }
                defer { group.cancelAll() }
                guard let first = try await group.next() else {
                    throw HeraldError.unreachable(reason: "no result")
                }
                return first
            }
        } catch let error as HeraldError {
            throw error
        } catch let error as ClientError {
            if let herald = error.underlyingError as? HeraldError { throw herald }
            if let response = error.response {
                throw .invalidResponse(status: response.status.code, reason: error.causeDescription)
            }
            throw Self.map(error.underlyingError, timeout: timeout)
        } catch {
            throw Self.map(error, timeout: timeout)
        }
    }

    #if canImport(OpenAPIAsyncHTTPClient)
        /// Names what AsyncHTTPClient and SwiftNIO report, without the address or any header.
        static func map(_ error: any Error, timeout: Duration) -> HeraldError {
            if let error = error as? HeraldError { return error }
            if let error = error as? IOError {
                return error.errnoCode == ECONNREFUSED
                    ? .unreachable(reason: "connection refused")
                    : .unreachable(reason: "network error \(error.errnoCode)")
            }
            if let error = error as? NIOConnectionError {
                if error.connectionErrors.contains(where: { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }) {
                    return .unreachable(reason: "connection refused")
                }
                if error.connectionErrors.isEmpty { return .unreachable(reason: "unknown host") }
                return .unreachable(reason: "cannot connect")
            }
            if let error = error as? HTTPClientError {
                switch error {
                case .connectTimeout, .deadlineExceeded, .readTimeout, .writeTimeout:
                    return .timeout(after: timeout)
                case .remoteConnectionClosed: return .unreachable(reason: "connection lost")
                default: return .unreachable(reason: "\(error)")
                }
            }
            if error is ChannelError { return .unreachable(reason: "connection lost") }
            return .unreachable(reason: String(describing: type(of: error)))
        }
    #else
        static func map(_ error: any Error, timeout: Duration) -> HeraldError {
            if let error = error as? HeraldError { return error }
            guard let urlError = error as? URLError else {
                return .unreachable(reason: String(describing: type(of: error)))
            }
            switch urlError.code {
            case .timedOut: return .timeout(after: timeout)
            case .cannotConnectToHost: return .unreachable(reason: "connection refused")
            case .cannotFindHost, .dnsLookupFailed: return .unreachable(reason: "unknown host")
            case .networkConnectionLost: return .unreachable(reason: "connection lost")
            case .notConnectedToInternet: return .unreachable(reason: "no network")
            case .badServerResponse: return .unreachable(reason: "malformed HTTP response")
            default: return .unreachable(reason: "network error \(urlError.code.rawValue)")
            }
        }
    #endif
}

extension DirectSend {
    /// Whether the body names a recipient: `userIds`, `deviceIds` or `projectId`.
    public var hasTarget: Bool {
        userIds?.isEmpty == false || deviceIds?.isEmpty == false || projectId != nil
    }
}
