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
    /// Sends every push at once; the task is cancelled if the shutdown grace period ends first.
    func send(_ pushes: [(index: Int, request: PushRequest)], batch: [ClaimedDelivery]) async -> [SendResult] {
        guard !pushes.isEmpty else { return [] }
        let apns = apns
        let task = Task {
            await withTaskGroup(of: SendResult.self) { group in
                for push in pushes {
                    let environment = batch[push.index].environment
                    group.addTask {
                        let begin = ContinuousClock.now
                        let result =
                            (try? await apns.send(push.request, environment: environment)) ?? .failed(.cancelled)
                        return SendResult(
                            index: push.index, result: result, latency: (ContinuousClock.now - begin).seconds)
                    }
                }
                var results: [SendResult] = []
                results.reserveCapacity(pushes.count)
                for await result in group { results.append(result) }
                return results
            }
        }
        let id = state.withLock { state in
            defer { state.nextSendID += 1 }
            state.sends[state.nextSendID] = task
            if state.graceOver { task.cancel() }
            return state.nextSendID
        }
        let results = await task.value
        _ = state.withLock { $0.sends.removeValue(forKey: id) }
        return results
    }
}
