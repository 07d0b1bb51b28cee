import APNsCore
import Cryptography
import Foundation
import Logging
import PollSupport
import Synchronization

/// One HTTP/2 connection to APNs, run with its pool's other connections by one ``ConnectionThread`` under `poll`, so
/// that no blocking C call touches Swift's cooperative pool.
///
/// Callers hand in requests through a locked inbox and the thread's wake-up pipe; the thread alone owns the TLS
/// connection, the nghttp2 session and the ``ConnectionStateMachine`` (in ``Loop``), and carries out the machine's
/// actions. The pool's ``ConnectionThread`` starts it; stop with ``stop()``.
final class APNsConnection: Sendable {
    /// The pool's number for a submission, by which its caller cancels it.
    typealias Ticket = UInt64

    struct Submission: Sendable {
        let ticket: Ticket
        let reply: Reply

        /// Runs `body` with the request where it lies. A batch's requests stay in its sink and a submission only
        /// points at one: copying a request retains its token, topic and payload, whose reference counts the
        /// callers' threads and the connection's thread would otherwise pass back and forth, several times per push.
        func withRequest<Result, Failure: Error>(
            _ body: (borrowing PushRequest) throws(Failure) -> Result
        ) throws(Failure) -> Result {
            switch reply {
            case .caller(let request, _): try body(request)
            case .batch(let sink, let index): try sink.withRequest(at: index, body)
            }
        }
    }

    /// Where a request's answer goes. Every path answers exactly once: ``Loop`` removes the waiting entry before
    /// answering, and `stop` takes the orphans out of the inbox.
    enum Reply: Sendable {
        /// One caller awaiting it, with its request; unsafe rather than checked, because a checked continuation
        /// allocates per push.
        case caller(PushRequest, UnsafeContinuation<PushResult, Never>)
        /// A batch's stream, which holds the batch's requests, at the request's index in the batch.
        case batch(PushAnswerSink, index: Int)

        /// Answers at once, alone; the loop gathers a turn's batch answers instead.
        func answer(_ result: PushResult) {
            switch self {
            case .caller(_, let continuation): continuation.resume(returning: result)
            case .batch(let sink, let index): sink.deliver([PushAnswer(index: index, result: result, latency: .zero)])
            }
        }
    }

    /// A TLS connection made on a connect thread, handed to the connection's thread once: nothing else touches it
    /// meanwhile.
    struct ConnectOutcome: @unchecked Sendable {
        let result: Result<TLSClientConnection, TLSError>
    }

    /// What callers and the connect thread handed in since the thread last looked.
    struct Delivery {
        var submissions: [Submission]
        var cancellations: [Ticket]
        var connectOutcome: ConnectOutcome?
        var stopping: Bool
    }

    private struct Inbox {
        var submissions: [Submission] = []
        /// The thread is (about to be) blocked in `poll` and needs a byte on the pipe to see new work.
        var sleeping = false
        var cancellations: [Ticket] = []
        var connectOutcome: ConnectOutcome?
        var started = false
        var stopping = false
        var stopped: CheckedContinuation<Void, Never>?
        var hasExited = false
    }

    let id: Int
    /// Requests submitted and not yet answered; the pool balances on it.
    let outstanding = Atomic<Int>(0)
    private let inbox = Mutex(Inbox())
    /// The pool thread's pipe: callers write a byte to wake its `poll`.
    private let wakePipe: WakePipe
    private let loop: Mutex<Loop?>

    init(
        id: Int, configuration: APNsClientConfiguration, tlsContext: TLSContext, tokens: ProviderTokenSource,
        wakePipe: WakePipe, logger: Logger
    ) {
        self.id = id
        self.wakePipe = wakePipe
        var logger = logger
        logger[metadataKey: APNsMetadataKey.connection] = "\(id)"
        loop = Mutex(Loop(id: id, configuration: configuration, tlsContext: tlsContext, tokens: tokens, logger: logger))
    }

    /// Hands the loop over to the pool's thread, once; from then on ``stop()`` waits for it to end. Connects lazily, on
    /// the first request.
    func takeLoop() -> Loop? {
        guard let taken = loop.withLock({ $0.take() }) else { return nil }
        taken.attach(to: self)
        inbox.withLock { $0.started = true }
        return taken
    }

    /// The thread has freed the loop, with its TLS connection, after answering everyone: ``stop()`` may return. Once
    /// the process exits, OpenSSL's own cleanup must not meet a thread still freeing OpenSSL objects.
    func loopEnded() {
        let waiter = inbox.withLock { inbox -> CheckedContinuation<Void, Never>? in
            inbox.hasExited = true
            return inbox.stopped.take()
        }
        waiter?.resume()
    }

    /// The connect thread is done; the connection's thread takes the outcome on its next turn. The outcome is taken
    /// out of the caller's hands under the lock, so the connect thread holds none of it once the loop can see it: the
    /// loop may then close the connection and end, and it must be the last to hold OpenSSL's objects.
    func connectFinished(_ outcome: inout ConnectOutcome?) {
        inbox.withLock { $0.connectOutcome = outcome.take() }
        wake()
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

    /// Marks the thread as about to block in `poll`, unless work is already waiting. A stop needs no mark: ``stop()``
    /// always writes to the pipe.
    /// - Returns: Whether the thread may block (nothing is waiting in the inbox).
    func prepareToSleep() -> Bool {
        inbox.withLock { inbox in
            let idle = inbox.submissions.isEmpty && inbox.cancellations.isEmpty && inbox.connectOutcome == nil
            inbox.sleeping = idle
            return idle
        }
    }

    /// The thread is back from `poll`; submitters need not wake it until it sleeps again.
    func awake() {
        inbox.withLock { $0.sleeping = false }
    }

    /// Everything handed in since the last call.
    func takeInbox() -> Delivery {
        inbox.withLock { inbox in
            // Emptied rather than cleared in place: the arrays handed out share their storage, so keeping its
            // capacity would allocate a new buffer each time.
            defer {
                inbox.submissions = []
                inbox.cancellations = []
                inbox.connectOutcome = nil
            }
            return Delivery(
                submissions: inbox.submissions, cancellations: inbox.cancellations,
                connectOutcome: inbox.connectOutcome, stopping: inbox.stopping)
        }
    }

    private func wake() { wakePipe.wake() }
}
