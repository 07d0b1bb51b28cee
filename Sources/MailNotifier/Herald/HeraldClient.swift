import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Herald's id for an accepted notification.
public struct HeraldNotificationID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
}

/// A client of Herald's direct-send route, `POST /api/v1/notifications`, and of the interactions the app
/// reports with those notifications, `GET /api/v1/interactions`.
///
/// Every call ends within the configured timeout: a gateway that accepts the connection but never
/// answers yields ``HeraldError/timeout(after:)``, one that refuses it ``HeraldError/unreachable(reason:)``.
public final class HeraldClient: Sendable {
    public static let notificationsPath = "api/v1/notifications"

    public let configuration: HeraldClientConfiguration
    private let session: URLSession

    public init(configuration: HeraldClientConfiguration) {
        self.configuration = configuration
        let seconds = Self.seconds(configuration.timeout)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = seconds
        sessionConfiguration.timeoutIntervalForResource = seconds
        self.session = URLSession(configuration: sessionConfiguration)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends one notification.
    /// - Parameter idempotencyKey: lets Herald recognise a retry of a request it already accepted.
    /// - Returns: Herald's id for the notification (`202 {"id": …}`).
    @discardableResult
    public func send(_ request: DirectSendRequest, idempotencyKey: String? = nil) async throws(HeraldError)
        -> HeraldNotificationID
    {
        guard request.hasTarget else {
            throw .invalidRequest(reason: "a notification needs userIds, deviceIds or projectId")
        }
        var urlRequest = authorizedRequest(
            to: configuration.baseURL.appending(path: Self.notificationsPath), method: "POST")
        urlRequest.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if let idempotencyKey {
            urlRequest.setValue(idempotencyKey, forHTTPHeaderField: "Idempotency-Key")
        }
        do {
            urlRequest.httpBody = try JSONEncoder().encode(request)
        } catch {
            throw .invalidRequest(reason: String(describing: error))
        }
        let (data, response) = try await perform(urlRequest)
        try Self.checkStatus(data, response)
        guard let accepted = try? JSONDecoder().decode(AcceptedBody.self, from: data) else {
            throw .invalidResponse(status: response.statusCode, reason: "expected {\"id\": …}")
        }
        return HeraldNotificationID(rawValue: accepted.id)
    }

    /// A request carrying the API key that asks for JSON and ends within the configured timeout.
    func authorizedRequest(to url: URL, method: String) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = Self.seconds(configuration.timeout)
        request.setValue("Bearer \(configuration.apiKey.secret)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        return request
    }

    /// Runs the request against a deadline; whichever finishes first wins and the other is cancelled.
    func perform(_ request: URLRequest) async throws(HeraldError) -> (Data, HTTPURLResponse) {
        let timeout = configuration.timeout
        let session = session
        do {
            return try await withThrowingTaskGroup(of: (Data, HTTPURLResponse).self) { group in
                group.addTask { try await Self.load(request, in: session, timeout: timeout) }
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
        } catch {
            throw .unreachable(reason: String(describing: error))
        }
    }

    private static func load(_ request: URLRequest, in session: URLSession, timeout: Duration) async throws -> (
        Data, HTTPURLResponse
    ) {
        let handle = DataTaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.map(error, timeout: timeout))
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: HeraldError.unreachable(reason: "no HTTP response"))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
    }

    private static func map(_ error: any Error, timeout: Duration) -> any Error {
        guard let urlError = error as? URLError else {
            return HeraldError.unreachable(reason: String(describing: error))
        }
        switch urlError.code {
        case .timedOut: return HeraldError.timeout(after: timeout)
        case .cancelled: return CancellationError()
        case .cannotConnectToHost: return HeraldError.unreachable(reason: "connection refused")
        case .cannotFindHost, .dnsLookupFailed: return HeraldError.unreachable(reason: "unknown host")
        case .networkConnectionLost: return HeraldError.unreachable(reason: "connection lost")
        case .notConnectedToInternet: return HeraldError.unreachable(reason: "no network")
        case .badServerResponse: return HeraldError.unreachable(reason: "malformed HTTP response")
        default: return HeraldError.unreachable(reason: "network error \(urlError.code.rawValue)")
        }
    }

    /// Turns an error status into ``HeraldError/rejected(status:code:message:field:)``, with the code, message
    /// and field of Herald's `{"error", "message", "field"}` body, or the status and the body's start when it
    /// has none.
    static func checkStatus(_ data: Data, _ response: HTTPURLResponse) throws(HeraldError) {
        let status = response.statusCode
        guard !(200..<300).contains(status) else { return }
        if let body = try? JSONDecoder().decode(ErrorBody.self, from: data) {
            throw .rejected(status: status, code: body.error, message: body.message ?? "", field: body.field)
        }
        throw .rejected(
            status: status, code: "http-\(status)", message: String(decoding: data.prefix(200), as: UTF8.self),
            field: nil)
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    private struct AcceptedBody: Decodable {
        let id: String
    }

    private struct ErrorBody: Decodable {
        let error: String
        let message: String?
        let field: String?
    }
}

/// Lets a cancellation that arrives before, during or after the task starts stop the data task.
private final class DataTaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var isCancelled = false

    func start(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let cancelled = isCancelled
        lock.unlock()
        task.resume()
        if cancelled {
            task.cancel()
        }
    }

    func cancel() {
        lock.lock()
        isCancelled = true
        let task = task
        lock.unlock()
        task?.cancel()
    }
}
