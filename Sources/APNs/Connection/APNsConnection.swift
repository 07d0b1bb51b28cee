import APNsCore
import Cryptography
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP/2 connection to APNs, run by a dedicated thread under `poll` so that no blocking C call
/// touches Swift's cooperative pool.
///
/// Callers hand in requests through a locked inbox and an `eventfd` wake-up; the thread alone owns
/// the TLS connection, the nghttp2 session and the ``ConnectionStateMachine``, and carries out the
/// machine's actions. Start with ``start()``; stop with ``stop()``.
final class APNsConnection: Sendable {
    /// The pool's number for a submission, by which its caller cancels it.
    typealias Ticket = UInt64

    struct Submission: Sendable {
        let ticket: Ticket
        let request: PushRequest
        let reply: Reply
    }

    /// Where a request's answer goes. Every path answers exactly once: ``Loop`` removes the waiting entry before
    /// answering, and `stop` takes the orphans out of the inbox.
    enum Reply: Sendable {
        /// One caller awaiting it; unsafe rather than checked, because a checked continuation allocates per push.
        case caller(UnsafeContinuation<PushResult, Never>)
        /// A batch's stream, at the request's index in the batch.
        case batch(PushAnswerSink, index: Int)

        /// Answers at once, alone; the loop gathers a turn's batch answers instead.
        func answer(_ result: PushResult) {
            switch self {
            case .caller(let continuation): continuation.resume(returning: result)
            case .batch(let sink, let index): sink.deliver([PushAnswer(index: index, result: result, latency: .zero)])
            }
        }
    }

    private struct Inbox {
        var submissions: [Submission] = []
        /// The thread is (about to be) blocked in `poll` and needs a byte on the pipe to see new work.
        var sleeping = false
        var cancellations: [Ticket] = []
        var started = false
        var stopping = false
        var stopped: CheckedContinuation<Void, Never>?
        var hasExited = false
    }

    let id: Int
    /// Requests submitted and not yet answered; the pool balances on it.
    let outstanding = Atomic<Int>(0)
    private let inbox = Mutex(Inbox())
    /// A non-blocking pipe: callers write a byte to wake the thread's `poll`.
    private let wakePipe: (read: Int32, write: Int32)
    private let loop: Mutex<Loop?>

    init(
        id: Int, configuration: APNsClientConfiguration, tlsContext: TLSContext, tokens: ProviderTokenSource,
        logger: Logger
    ) {
        self.id = id
        var descriptors: [Int32] = [0, 0]
        // pipe and fcntl fail only when the process is out of descriptors, which no request can fix.
        precondition(pipe(&descriptors) == 0, "pipe failed: errno \(errno)")
        for descriptor in descriptors {
            precondition(fcntl(descriptor, F_SETFL, O_NONBLOCK) == 0, "fcntl failed: errno \(errno)")
            precondition(fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0, "fcntl failed: errno \(errno)")
        }
        wakePipe = (descriptors[0], descriptors[1])
        var logger = logger
        logger[metadataKey: APNsMetadataKey.connection] = "\(id)"
        loop = Mutex(
            Loop(
                configuration: configuration, tlsContext: tlsContext, tokens: tokens, logger: logger,
                wakeDescriptor: descriptors[0]))
    }

    deinit {
        close(wakePipe.read)
        close(wakePipe.write)
    }

    /// Starts the connection's thread. Connects lazily, on the first request.
    func start() {
        let first = inbox.withLock { inbox in
            defer { inbox.started = true }
            return !inbox.started
        }
        guard first else { return }
        let thread = Thread { [self] in
            runLoop()
            let waiter = inbox.withLock { inbox -> CheckedContinuation<Void, Never>? in
                inbox.hasExited = true
                return inbox.stopped.take()
            }
            waiter?.resume()
        }
        thread.name = "apns-connection-\(id)"
        thread.start()
    }

    /// Runs the loop and frees it, with its TLS context and signing key, before ``stop()`` may return: once the
    /// process exits, OpenSSL's own cleanup must not meet a thread still freeing OpenSSL objects.
    private func runLoop() {
        guard let loop = loop.withLock({ $0.take() }) else { return }
        loop.run(connection: self)
    }

    /// Fails every open request with ``TransportFailure/shutDown`` and ends the thread.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (exited, orphans) = inbox.withLock { inbox -> (Bool, [Submission]) in
                inbox.stopping = true
                if !inbox.started {
                    defer { inbox.submissions = [] }
                    return (true, inbox.submissions)
                }
                if inbox.hasExited { return (true, []) }
                inbox.stopped = continuation
                return (false, [])
            }
            for orphan in orphans {
                outstanding.subtract(1, ordering: .relaxed)
                orphan.reply.answer(.failed(.shutDown))
            }
            if exited { continuation.resume() } else { wake() }
        }
    }

    func submit(_ submission: Submission) {
        submit(contentsOf: [submission])
    }

    /// Hands `submissions` to the thread under one lock, waking it at most once.
    func submit(contentsOf submissions: [Submission]) {
        outstanding.add(submissions.count, ordering: .relaxed)
        let (accepted, mustWake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.stopping else { return (false, false) }
            // Under load the thread has taken the last batch already: hand this one over whole, without copying.
            if inbox.submissions.isEmpty {
                inbox.submissions = submissions
            } else {
                inbox.submissions.append(contentsOf: submissions)
            }
            // Under load the thread is busy and picks new work up on its next turn: wake it only when asleep.
            let mustWake = inbox.sleeping
            inbox.sleeping = false
            return (true, mustWake)
        }
        guard accepted else {
            outstanding.subtract(submissions.count, ordering: .relaxed)
            for submission in submissions { submission.reply.answer(.failed(.shutDown)) }
            return
        }
        if mustWake { wake() }
    }

    func cancel(_ tickets: [Ticket]) {
        inbox.withLock { $0.cancellations.append(contentsOf: tickets) }
        wake()
    }

    /// Everything callers handed in since the last call.
    /// Marks the thread as about to block in `poll`, unless work is already waiting.
    /// - Returns: Whether the thread may block (nothing is waiting in the inbox).
    func prepareToSleep() -> Bool {
        inbox.withLock { inbox in
            let idle = inbox.submissions.isEmpty && inbox.cancellations.isEmpty && !inbox.stopping
            inbox.sleeping = idle
            return idle
        }
    }

    /// The thread is back from `poll`; submitters need not wake it until it sleeps again.
    func awake() {
        inbox.withLock { $0.sleeping = false }
    }

    func takeInbox() -> (submissions: [Submission], cancellations: [Ticket], stopping: Bool) {
        inbox.withLock { inbox in
            // Emptied rather than cleared in place: the arrays handed out share their storage, so keeping its
            // capacity would allocate a new buffer each time.
            defer {
                inbox.submissions = []
                inbox.cancellations = []
            }
            return (inbox.submissions, inbox.cancellations, inbox.stopping)
        }
    }

    private func wake() {
        var byte: UInt8 = 1
        // A full pipe (EAGAIN) already holds unread wake-ups, which is all a wake-up needs.
        _ = Glibc.write(wakePipe.write, &byte, 1)
    }
}
