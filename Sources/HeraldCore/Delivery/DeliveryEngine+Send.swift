import APNsCore
import Foundation
import Logging
import Synchronization

/// One push of a batch and what came of it.
struct SendResult: Sendable {
    let index: Int
    let result: PushResult
    /// Seconds from handing the push to the transport to its answer.
    let latency: Double
}

extension DeliveryEngine {
    /// Sends every push at once and hands Apple's answers on in chunks as they arrive: every
    /// ``DeliveryEngineConfiguration/recordInterval``, or sooner once ``DeliveryEngineConfiguration/recordCount``
    /// have come, so a process that dies mid-batch resends only what was unanswered or unrecorded in that window.
    /// The sending task is cancelled if the shutdown grace period ends first; the chunks are recorded by the
    /// caller, outside it.
    func send(_ pushes: [(index: Int, request: PushRequest)], batch: [ClaimedDelivery]) -> AsyncStream<[SendResult]> {
        let (chunks, output) = AsyncStream.makeStream(of: [SendResult].self, bufferingPolicy: .unbounded)
        guard !pushes.isEmpty else {
            output.finish()
            return chunks
        }
        let apns = apns
        let interval = configuration.recordInterval
        let count = configuration.recordCount
        let task = Task {
            await withTaskGroup(of: Answer.self) { group in
                for push in pushes {
                    let environment = batch[push.index].environment
                    group.addTask {
                        let begin = ContinuousClock.now
                        let result =
                            (try? await apns.send(push.request, environment: environment)) ?? .failed(.cancelled)
                        return .result(
                            SendResult(
                                index: push.index, result: result, latency: (ContinuousClock.now - begin).seconds))
                    }
                }
                let tick: @Sendable () async -> Answer = {
                    try? await Task.sleep(for: interval)
                    return .tick
                }
                group.addTask(operation: tick)
                var pending: [SendResult] = []
                var answered = 0
                var lastHandOff = ContinuousClock.now
                while answered < pushes.count, let answer = await group.next() {
                    switch answer {
                    case .result(let result):
                        pending.append(result)
                        answered += 1
                    case .tick:
                        group.addTask(operation: tick)
                    }
                    let due = lastHandOff.duration(to: .now) >= interval
                    if !pending.isEmpty, pending.count >= count || due || answered == pushes.count {
                        output.yield(pending)
                        pending.removeAll(keepingCapacity: true)
                        lastHandOff = .now
                    }
                }
                group.cancelAll()
            }
            output.finish()
        }
        let id = state.withLock { state in
            defer { state.nextSendID += 1 }
            state.sends[state.nextSendID] = task
            if state.graceOver { task.cancel() }
            return state.nextSendID
        }
        output.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.sends.removeValue(forKey: id) }
        }
        return chunks
    }
}

/// What the sending task group yields: an answer, or a tick that lets answers waiting for a slow one be handed on.
private enum Answer: Sendable {
    case result(SendResult)
    case tick
}
