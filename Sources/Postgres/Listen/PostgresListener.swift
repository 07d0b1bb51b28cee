import Foundation
import Glibc
public import Logging
import PollSupport
import Synchronization

/// Receives `NOTIFY` messages on one dedicated session.
///
/// The session lives on its own thread, blocked in `poll` until the server sends something, so a notification is
/// handed on as soon as it arrives. When the session breaks it reconnects with backoff and listens again on every
/// channel; notifications sent while it was down are lost, so consumers keep a polling fallback.
public final class PostgresListener: Sendable {
    private struct Subscriber {
        let channel: String
        let continuation: AsyncStream<PostgresNotification>.Continuation
    }

    private enum Command {
        case listen(String, CheckedContinuation<Void, any Error>)
        case unlisten(String)
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextID = 0
        var commands: [Command] = []
        var isStopping = false
        /// The thread has closed its session and left its loop.
        var hasEnded = false
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let wakePipe: WakePipe
    private let configuration: PostgresConfiguration
    private let logger: Logger

    public init(configuration: PostgresConfiguration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        do {
            wakePipe = try WakePipe()
        } catch {
            throw PostgresError(kind: .invalidUsage, message: error.description)
        }
        let thread = Thread { [self] in self.runLoop() }
        thread.name = "herald.postgres.listen"
        thread.start()
    }

    /// Listens on `channel` while `body` runs; `body` reads the notifications from the sequence it is given.
    ///
    /// `LISTEN` has taken effect when `body` starts, so a `NOTIFY` sent from then on is delivered.
    ///
    /// - Throws: ``PostgresError`` `.invalidUsage` for a channel name PostgreSQL would truncate (over 63 bytes).
    public func listen<T>(on channel: String, _ body: (PostgresNotifications) async throws -> T) async throws -> T {
        guard !channel.isEmpty, channel.utf8.count <= 63 else {
            throw PostgresError(kind: .invalidUsage, message: "a channel name must be 1 to 63 bytes long")
        }
        let (stream, continuation) = AsyncStream.makeStream(of: PostgresNotification.self, bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = Subscriber(channel: channel, continuation: continuation)
            return state.nextID
        }
        defer { unsubscribe(id) }
        try await withCheckedThrowingContinuation { (confirmed: CheckedContinuation<Void, any Error>) in
            let accepted = state.withLock { state -> Bool in
                guard !state.isStopping else { return false }
                state.commands.append(.listen(channel, confirmed))
                return true
            }
            if accepted {
                wakePipe.wake()
            } else {
                confirmed.resume(throwing: PostgresError(kind: .shutDown, message: "the listener has been shut down"))
            }
        }
        return try await body(PostgresNotifications(stream: stream))
    }

    /// Ends every subscription's sequence and closes the session.
    public func shutdown() {
        let subscribers = state.withLock { state in
            state.isStopping = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        subscribers.forEach { $0.continuation.finish() }
        wakePipe.wake()
    }

    /// Like ``shutdown()``, and returns once the session is closed and the listening thread has left its loop.
    public func close() async {
        shutdown()
        await withCheckedContinuation { continuation in
            let ended = state.withLock { state -> Bool in
                if !state.hasEnded { state.endWaiters.append(continuation) }
                return state.hasEnded
            }
            if ended { continuation.resume() }
        }
    }

    private func unsubscribe(_ id: Int) {
        let lastForChannel = state.withLock { state -> String? in
            guard let removed = state.subscribers.removeValue(forKey: id) else { return nil }
            removed.continuation.finish()
            if state.subscribers.values.contains(where: { $0.channel == removed.channel }) { return nil }
            state.commands.append(.unlisten(removed.channel))
            return removed.channel
        }
        if lastForChannel != nil { wakePipe.wake() }
    }

    // MARK: The listening thread

    private func runLoop() {
        var connection: LibPQConnection?
        var retryDelay: Duration = .milliseconds(100)
        while !state.withLock({ $0.isStopping }) {
            if connection == nil {
                connection = connect()
                if connection == nil {
                    waitForWake(timeout: retryDelay)
                    retryDelay = min(retryDelay * 2, .seconds(5))
                    continue
                }
                retryDelay = .milliseconds(100)
            }
            guard let session = connection else { continue }
            runCommands(on: session)
            // Statements run above may have read notifications into libpq's queue, or left them unparsed in its
            // buffer: hand those on now, since the socket will not signal them again.
            if session.consumeInput() {
                session.drainNotifications(deliver)
                waitForInput(on: session)
            }
            if !session.consumeInput() {
                logger.warning("LISTEN session lost; reconnecting")
                connection = nil
                continue
            }
            session.drainNotifications(deliver)
        }
        connection?.finish()
        let waiters = state.withLock { state in
            for command in state.commands {
                if case .listen(_, let confirmed) = command {
                    confirmed.resume(
                        throwing: PostgresError(kind: .shutDown, message: "the listener has been shut down"))
                }
            }
            state.commands.removeAll()
            state.hasEnded = true
            defer { state.endWaiters.removeAll() }
            return state.endWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Opens a session and listens on every channel someone subscribed to.
    private func connect() -> LibPQConnection? {
        do {
            let session = try LibPQConnection(parameters: configuration.connectParameters)
            let channels = state.withLock { Set($0.subscribers.values.map(\.channel)) }
            for channel in channels { try session.executeScript("LISTEN \(quoteIdentifier(channel))") }
            return session
        } catch {
            logger.warning("LISTEN session could not connect", metadata: ["postgres.error": "\(error)"])
            return nil
        }
    }

    private func runCommands(on session: LibPQConnection) {
        let commands = state.withLock { state in
            defer { state.commands.removeAll() }
            return state.commands
        }
        for command in commands {
            switch command {
            case .listen(let channel, let confirmed):
                confirmed.resume(with: Result { try session.executeScript("LISTEN \(quoteIdentifier(channel))") })
            case .unlisten(let channel):
                let stillWanted = state.withLock { $0.subscribers.values.contains { $0.channel == channel } }
                if !stillWanted { try? session.executeScript("UNLISTEN \(quoteIdentifier(channel))") }
            }
        }
    }

    private func deliver(_ notification: PostgresNotification) {
        state.withLock { state in
            for subscriber in state.subscribers.values where subscriber.channel == notification.channel {
                subscriber.continuation.yield(notification)
            }
        }
    }

    /// Blocks until the server sends something or another thread wakes the loop.
    private func waitForInput(on session: LibPQConnection) {
        guard session.socket >= 0 else { return }
        var descriptors = [
            pollfd(fd: session.socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakePipe.readDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        // EINTR and other failures just end this wait; the loop then reads the socket and comes back.
        if poll(&descriptors, 2, -1) > 0 && descriptors[1].revents != 0 { wakePipe.drain() }
    }

    private func waitForWake(timeout: Duration) {
        var descriptor = pollfd(fd: wakePipe.readDescriptor, events: Int16(POLLIN), revents: 0)
        if poll(&descriptor, 1, pollMilliseconds(timeout)) > 0 { wakePipe.drain() }
    }
}

/// The notifications of one ``PostgresListener/listen(on:_:)`` subscription, in arrival order.
public struct PostgresNotifications: AsyncSequence, Sendable {
    public typealias Element = PostgresNotification
    let stream: AsyncStream<PostgresNotification>

    public func makeAsyncIterator() -> AsyncStream<PostgresNotification>.Iterator { stream.makeAsyncIterator() }
}
