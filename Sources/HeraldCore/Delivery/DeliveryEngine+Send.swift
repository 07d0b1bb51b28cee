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
    /// Sends every push at once, one batch per environment, and hands Apple's answers on in chunks as they arrive:
    /// every ``DeliveryEngineConfiguration/recordInterval``, or sooner once ``DeliveryEngineConfiguration/recordCount``
    /// have come, so a process that dies mid-batch resends only what was unanswered or unrecorded in that window.
    /// The sending task is cancelled if the shutdown grace period ends first (what is unanswered then is
    /// `.failed(.cancelled)`); the chunks are recorded by the caller, outside it.
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
            let (arrivals, arrival) = AsyncStream.makeStream(of: Arrival.self, bufferingPolicy: .unbounded)
            await withTaskGroup(of: Void.self) { group in
                for members in Dictionary(grouping: pushes, by: { batch[$0.index].environment }).values {
                    let answers = apns.send(members.map(\.request), environment: batch[members[0].index].environment)
                    group.addTask {
                        for await chunk in answers {
                            arrival.yield(
                                .answers(
                                    chunk.map {
                                        SendResult(
                                            index: members[$0.index].index, result: $0.result,
                                            latency: $0.latency.seconds)
                                    }))
                        }
                    }
                }
                // Lets answers waiting for a slow one be handed on.
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        arrival.yield(.tick)
                    }
                }
                var unanswered = Set(pushes.map(\.index))
                var pending: [SendResult] = []
                var lastHandOff = ContinuousClock.now
                for await next in arrivals {
                    if case .answers(let results) = next {
                        for result in results where unanswered.remove(result.index) != nil { pending.append(result) }
                    }
                    let due = lastHandOff.duration(to: .now) >= interval
                    if !pending.isEmpty, pending.count >= count || due || unanswered.isEmpty {
                        output.yield(pending)
                        pending.removeAll(keepingCapacity: true)
                        lastHandOff = .now
                    }
                    if unanswered.isEmpty { break }
                }
                group.cancelAll()
                // Iteration ends early only when the grace period is over.
                pending += unanswered.sorted().map { SendResult(index: $0, result: .failed(.cancelled), latency: 0) }
                if !pending.isEmpty { output.yield(pending) }
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

/// What the sending task waits on: a chunk of answers, or a tick that lets answers waiting for a slow one be
/// handed on.
private enum Arrival: Sendable {
    case answers([SendResult])
    case tick
}
