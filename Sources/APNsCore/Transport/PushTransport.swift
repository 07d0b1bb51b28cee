/// Sends pushes to one APNs endpoint.
public protocol PushTransport: Sendable {
    /// Sends one push and returns Apple's answer, or why there was none. Never waits longer than the
    /// transport's request timeout.
    /// - Throws: `CancellationError` only when the calling task was cancelled before sending.
    func send(_ request: PushRequest) async throws -> PushResult

    /// Sends every push at once; see ``PushAnswers``.
    func send(_ requests: [PushRequest]) -> PushAnswers
}

/// Sends pushes to Apple in either environment: the one seam the delivery engine depends on.
public protocol APNsTransport: Sendable {
    /// Sends one push to `environment`'s servers and returns Apple's answer, or why there was none.
    /// - Throws: `CancellationError` only when the calling task was cancelled before sending.
    func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult

    /// Sends every push to `environment`'s servers at once; see ``PushAnswers``.
    func send(_ requests: [PushRequest], environment: APNsEnvironment) -> PushAnswers
}

/// Apple's answers to a batch of pushes, in chunks as they arrive, in no particular order: exactly one answer per
/// request, each naming the request's index. The stream ends after the last one. Ending the iteration early (or
/// cancelling the iterating task) cancels what is still unanswered; what was already sent may still reach devices.
public typealias PushAnswers = AsyncStream<[PushAnswer]>

/// One request's answer in a batch.
public struct PushAnswer: Sendable {
    /// The request's position in the batch.
    public let index: Int
    public let result: PushResult
    /// From the transport taking the request to its answer.
    public let latency: Duration

    public init(index: Int, result: PushResult, latency: Duration) {
        self.index = index
        self.result = result
        self.latency = latency
    }
}

extension PushTransport {
    /// One push at a time through ``send(_:)-(PushRequest)``, all at once: for transports without a batch path.
    public func send(_ requests: [PushRequest]) -> PushAnswers {
        PushAnswers.concurrently(requests) { try await send($0) }
    }
}

extension APNsTransport {
    /// One push at a time through ``send(_:environment:)-(PushRequest,_)``, all at once: for transports without
    /// a batch path.
    public func send(_ requests: [PushRequest], environment: APNsEnvironment) -> PushAnswers {
        PushAnswers.concurrently(requests) { try await send($0, environment: environment) }
    }
}

extension PushAnswers {
    /// Answers `requests` with one task each, every answer in a chunk of its own.
    public static func concurrently(
        _ requests: [PushRequest], send: @escaping @Sendable (PushRequest) async throws -> PushResult
    ) -> PushAnswers {
        let (answers, output) = PushAnswers.makeStream()
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, request) in requests.enumerated() {
                    group.addTask {
                        let begin = ContinuousClock.now
                        let result = (try? await send(request)) ?? .failed(.cancelled)
                        output.yield([PushAnswer(index: index, result: result, latency: .now - begin)])
                    }
                }
            }
            output.finish()
        }
        output.onTermination = { _ in task.cancel() }
        return answers
    }
}
