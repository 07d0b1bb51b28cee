/// Sends pushes to one APNs endpoint.
public protocol PushTransport: Sendable {
    /// Sends one push and returns Apple's answer, or why there was none. Never waits longer than the
    /// transport's request timeout.
    /// - Throws: `CancellationError` only when the calling task was cancelled before sending.
    func send(_ request: PushRequest) async throws -> PushResult
}

/// Sends pushes to Apple in either environment: the one seam the delivery engine depends on.
public protocol APNsTransport: Sendable {
    /// Sends one push to `environment`'s servers and returns Apple's answer, or why there was none.
    /// - Throws: `CancellationError` only when the calling task was cancelled before sending.
    func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult
}
