import APNsCore
import Synchronization

/// One push of a batch and what came of it.
struct SendResult: Sendable {
    let index: Int
    let result: PushResult
    /// Seconds from handing the push to the transport to its answer.
    let latency: Double
}

extension DeliveryEngine {
    /// Hands every push to the transport at once (the worker holds their permits), one batch per environment, and
    /// puts Apple's answers in `mailbox` as they arrive. The sending task is cancelled if the shutdown grace period
    /// ends first; what is unanswered then is `.failed(.cancelled)`, released to `pending`. Returns the task's id in
    /// ``EngineState/sends``; the caller forgets it once the mailbox is finished.
    func startSending(
        _ pushes: [(index: Int, request: PushRequest)], batch: [ClaimedDelivery], into mailbox: AnswerMailbox
    ) -> Int {
        let apns = apns
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for members in Dictionary(grouping: pushes, by: { batch[$0.index].environment }).values {
                    let answers = apns.send(members.map(\.request), environment: batch[members[0].index].environment)
                    group.addTask {
                        for await chunk in answers { mailbox.deliver(chunk.map { (members[$0.index].index, $0) }) }
                    }
                }
            }
            mailbox.finish()
        }
        return state.withLock { state in
            defer { state.nextSendID += 1 }
            state.sends[state.nextSendID] = task
            if state.graceOver { task.cancel() }
            return state.nextSendID
        }
    }

    /// The sending task `id` is done.
    func forgetSending(_ id: Int) {
        _ = state.withLock { $0.sends.removeValue(forKey: id) }
    }

    /// `results` are recorded: their permits go back to the send window's `part`.
    func settle(_ results: [SendResult], to part: SendWindow.Part) {
        window.release(results.count, to: part)
        metrics.setSendWindow(window.limit)
    }
}
