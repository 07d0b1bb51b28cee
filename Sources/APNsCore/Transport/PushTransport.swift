/// Sends pushes to Apple. The one seam the delivery engine depends on.
public protocol PushTransport: Sendable {
    /// Sends one push and returns Apple's answer, or why there was none. Never waits longer than the
    /// transport's request timeout.
    /// - Throws: `CancellationError` only when the calling task was cancelled before sending.
    func send(_ request: PushRequest) async throws -> PushResult
}
