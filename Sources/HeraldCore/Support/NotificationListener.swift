public import Logging
public import Postgres

/// Hands every `NOTIFY` on some channels to a handler, on one dedicated session: the one way the engine, expansion
/// and the key router listen. Every listener also polls, so a notification lost while the session is down only
/// delays work.
public struct NotificationListener: Sendable {
    private let configuration: PostgresConfiguration
    private let channels: [String]
    /// What the notifications announce, for log lines ("new deliveries").
    private let subject: String
    private let logger: Logger

    public init(configuration: PostgresConfiguration, channels: [String], subject: String, logger: Logger) {
        self.configuration = configuration
        self.channels = channels
        self.subject = subject
        self.logger = logger
    }

    /// Calls `handle` for each notification until the task is cancelled, listening again a second after a failure;
    /// the session is closed before it returns, so a process that exits next does not race it.
    public func run(_ handle: @escaping @Sendable (PostgresNotification) async -> Void) async {
        let listener: PostgresListener
        do {
            listener = try PostgresListener(configuration: configuration, logger: logger)
        } catch {
            logger.warning("cannot listen for \(subject); polling only", metadata: ["herald.error": "\(error)"])
            return
        }
        await withTaskCancellationHandler {
            while !Task.isCancelled {
                do {
                    try await listen(listener, on: channels[...], streams: [], handle)
                } catch {
                    if Task.isCancelled { break }
                    logger.warning(
                        "listening for \(subject) failed; polling until it works again",
                        metadata: ["herald.error": "\(error)"])
                }
                try? await Task.sleep(for: .seconds(1))
            }
        } onCancel: {
            listener.shutdown()
        }
        await listener.close()
    }

    /// Listens on each channel in turn, then reads all their notifications until the listener shuts down.
    private func listen(
        _ listener: PostgresListener, on channels: ArraySlice<String>, streams: [PostgresNotifications],
        _ handle: @escaping @Sendable (PostgresNotification) async -> Void
    ) async throws {
        guard let channel = channels.first else {
            await withTaskGroup(of: Void.self) { group in
                for stream in streams {
                    group.addTask { for await notification in stream { await handle(notification) } }
                }
            }
            return
        }
        try await listener.listen(on: channel) { stream in
            try await listen(listener, on: channels.dropFirst(), streams: streams + [stream], handle)
        }
    }
}
