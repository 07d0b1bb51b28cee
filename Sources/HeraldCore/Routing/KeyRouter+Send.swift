public import APNsCore

extension KeyRouter {
    public func send(_ request: PushRequest, environment: APNsEnvironment) async throws -> PushResult {
        let routes = candidates(topic: request.topic, environment: environment)
        guard let routes else { return try await defaultClient.send(request, environment: environment) }
        var last: PushResult = .failed(
            .noSigningKey("no active signing key of the app's team may sign for \(request.topic) in \(environment)"))
        for (position, route) in routes.enumerated() {
            guard let client = await acquireClient(for: route) else { continue }
            defer { release(route.ref) }
            last = try await client.send(request, environment: environment)
            guard case .rejected(let rejection) = last, rejection.reason.consequence == .refuseKey,
                position < routes.count - 1
            else { return last }
            pause(route.ref, reason: rejection.reason)
        }
        return last
    }

    /// Sends each topic's pushes as one batch through that topic's best key. A push that Apple answers by refusing
    /// the key goes again alone through ``send(_:environment:)-(PushRequest,_)``, which pauses that key and tries
    /// the team's next one.
    public func send(_ requests: [PushRequest], environment: APNsEnvironment) -> PushAnswers {
        let (answers, output) = PushAnswers.makeStream()
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                for indices in Dictionary(grouping: requests.indices, by: { requests[$0].topic }).values {
                    group.addTask {
                        await self.send(indices.map { requests[$0] }, at: indices, environment: environment, to: output)
                    }
                }
            }
            output.finish()
        }
        output.onTermination = { _ in task.cancel() }
        return answers
    }

    /// Sends the pushes of one topic, answering each at its position in the caller's batch; unanswered when
    /// cancelled means `.failed(.cancelled)`.
    private func send(
        _ share: [PushRequest], at positions: [Int], environment: APNsEnvironment, to output: PushAnswers.Continuation
    ) async {
        let routes = candidates(topic: share[0].topic, environment: environment)
        // Before the first read of the keys there are no routes, and the settings' key signs. With routes but none
        // usable (no key may sign, or the best key's material is unreadable), the one-push path answers why, or
        // pauses the key and tries the next.
        var client: (any APNsTransport)? = routes == nil ? defaultClient : nil
        if let route = routes?.first { client = await acquireClient(for: route) }
        guard let client else {
            return await sendOneByOne(
                Array(share.indices), of: share, at: positions, environment: environment, to: output)
        }
        defer { if let route = routes?.first { release(route.ref) } }
        let mayTryAnotherKey = (routes?.count ?? 0) > 1
        var unanswered = Set(share.indices)
        var refused: [Int] = []
        for await chunk in client.send(share, environment: environment) {
            var passed: [PushAnswer] = []
            passed.reserveCapacity(chunk.count)
            for answer in chunk {
                unanswered.remove(answer.index)
                if case .rejected(let rejection) = answer.result, rejection.reason.consequence == .refuseKey,
                    mayTryAnotherKey, let route = routes?.first
                {
                    pause(route.ref, reason: rejection.reason)
                    refused.append(answer.index)
                } else {
                    passed.append(
                        PushAnswer(index: positions[answer.index], result: answer.result, latency: answer.latency))
                }
            }
            if !passed.isEmpty { output.yield(passed) }
        }
        await sendOneByOne(refused, of: share, at: positions, environment: environment, to: output)
        if !unanswered.isEmpty {
            output.yield(
                unanswered.map { PushAnswer(index: positions[$0], result: .failed(.cancelled), latency: .zero) })
        }
    }

    /// Sends `indices` of `share` through the one-push path, all at once, answering at the caller's positions.
    private func sendOneByOne(
        _ indices: [Int], of share: [PushRequest], at positions: [Int], environment: APNsEnvironment,
        to output: PushAnswers.Continuation
    ) async {
        let answers = PushAnswers.concurrently(indices.map { share[$0] }) {
            try await self.send($0, environment: environment)
        }
        for await chunk in answers {
            output.yield(
                chunk.map {
                    PushAnswer(index: positions[indices[$0.index]], result: $0.result, latency: $0.latency)
                })
        }
    }
}
