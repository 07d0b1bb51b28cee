import APNsCore
import CoreMetrics
import Logging
import Synchronization

extension KeyRouter {
    /// The key's client, made on first use and counted as in use until ``release(_:)``; nil (and the key paused)
    /// when its material cannot be read.
    func acquireClient(for route: KeyRoutingTable<C.Instant>.Route) async -> (any APNsTransport)? {
        if route.ref == defaultKey { return defaultClient }
        let now = clock.now
        let making = state.withLock { state in
            if state.clients[route.ref] == nil {
                state.clients[route.ref] = OpenClient(making: Task { await self.makeClient(for: route) }, lastUsed: now)
            }
            state.clients[route.ref]!.inFlight += 1
            state.clients[route.ref]!.lastUsed = now
            return state.clients[route.ref]!.making
        }
        return await making.value
    }

    /// Ends one use of the key's client.
    func release(_ ref: SigningKeyRef) {
        guard ref != defaultKey else { return }
        let now = clock.now
        state.withLock { state in
            state.clients[ref]?.inFlight -= 1
            state.clients[ref]?.lastUsed = now
        }
    }

    /// Reads the key, adopts the fleet's provider token for it before the first push (so no process mints a token
    /// of its own that Apple may refuse), and starts its connections and token renewal.
    private func makeClient(for route: KeyRoutingTable<C.Instant>.Route) async -> (any SigningKeyClient)? {
        do {
            let made = try clients.makeClient(
                for: route.key, privateKeyPEM: try route.material.pem(of: route.key, masterKey: masterKey))
            let tokens = ProviderTokenCoordinator(
                store: ProviderTokenStore(client: database), source: made.tokens, logger: logger)
            try? await tokens.synchronize()
            state.withLock { state in
                state.clients[route.ref]?.connections = Task { await made.run() }
                state.clients[route.ref]?.renewal = Task { await tokens.run() }
            }
            return made
        } catch {
            let until = clock.now.advanced(by: Self.keyPause)
            state.withLock { state in
                state.table.pause(route.ref, until: until)
                state.clients[route.ref] = nil
            }
            pausedGauge(route.ref).record(1)
            logger.error(
                "cannot use signing key \(route.ref): \(error); pausing it",
                metadata: ["herald.apns.key_id": "\(route.key.keyID)"])
            return nil
        }
    }

    /// Stops the token renewal of keys no longer active at once, and closes the connections of a key that is no
    /// longer active or has been idle for `keyIdleLifetime`, once no send is using them.
    func closeUnneededClients() {
        let now = clock.now
        let closed = state.withLock { state -> [(SigningKeyRef, OpenClient, active: Bool)] in
            let active = state.table.activeKeys
            var closed: [(SigningKeyRef, OpenClient, active: Bool)] = []
            for (ref, client) in state.clients {
                let isActive = active.contains(ref)
                if !isActive, let renewal = client.renewal {
                    renewal.cancel()
                    state.clients[ref]?.renewal = nil
                }
                guard client.inFlight == 0, client.connections != nil,
                    !isActive || client.lastUsed.duration(to: now) >= keyIdleLifetime
                else { continue }
                state.clients[ref] = nil
                closed.append((ref, client, isActive))
            }
            return closed
        }
        for (ref, client, active) in closed {
            client.stop()
            logger.info(
                "closed the APNs connections of signing key \(ref): \(active ? "idle" : "no longer active")",
                metadata: ["herald.apns.key_id": "\(ref.keyID)", "herald.apns.team_id": "\(ref.teamID)"])
        }
    }
}
