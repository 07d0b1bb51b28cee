import HeraldCore
import Synchronization

/// The API keys the ingress has looked up, for ``IngressCredentials``: a secret's key, or its absence, is reused for
/// `lifetime`; requests that come together with a secret not remembered share one lookup; and the lookups one client
/// address causes are paced (``LookupPacer``). Absences are remembered apart from keys, so made-up secrets, however
/// many, never push a real key out of memory, and a malformed secret costs no lookup at all.
final class APIKeyLookups: Sendable {
    private struct Remembered {
        let key: APIKey?
        let until: ContinuousClock.Instant
    }

    private struct Memory {
        var keys: [String: Remembered] = [:]
        var absent: [String: Remembered] = [:]
        var running: [String: Task<APIKey?, any Error>] = [:]
    }

    /// Secrets remembered at most, keys and absences each.
    static let rememberedSecrets = 1000

    private let store: APIKeyStore
    private let pacer: LookupPacer
    private let lifetime: Duration
    private let memory = Mutex(Memory())

    init(store: APIKeyStore, pacer: LookupPacer, lifetime: Duration) {
        self.store = store
        self.pacer = pacer
        self.lifetime = lifetime
    }

    /// The key of `secret`, or nil when it names none.
    /// - Throws: When the database cannot be read.
    func key(_ secret: String, from address: String?) async throws -> APIKey? {
        guard APIKeyStore.isWellFormed(secret) else { return nil }
        enum Found {
            case remembered(APIKey?)
            case lookup(Task<APIKey?, any Error>)
        }
        let found = memory.withLock { memory -> Found in
            if let known = memory.keys[secret] ?? memory.absent[secret], known.until > .now {
                return .remembered(known.key)
            }
            if let running = memory.running[secret] { return .lookup(running) }
            let running = Task { try await self.lookUp(secret, from: address) }
            memory.running[secret] = running
            return .lookup(running)
        }
        switch found {
        case .remembered(let key): return key
        case .lookup(let running): return try await running.value
        }
    }

    private func lookUp(_ secret: String, from address: String?) async throws -> APIKey? {
        let key: APIKey?
        do {
            try await pacer.waitForTurn(of: address ?? "")
            key = try await store.authenticate(secret)
        } catch {
            memory.withLock { $0.running[secret] = nil }
            throw error
        }
        let now = ContinuousClock.now
        let remembered = Remembered(key: key, until: now + lifetime)
        memory.withLock { memory in
            memory.running[secret] = nil
            // A secret is remembered in one place: a revoked key's old entry would otherwise be found first, expired,
            // and cost a lookup per request while its absence is remembered.
            if key == nil {
                memory.keys[secret] = nil
                Self.remember(secret, remembered, in: &memory.absent, now: now)
            } else {
                memory.absent[secret] = nil
                Self.remember(secret, remembered, in: &memory.keys, now: now)
            }
        }
        return key
    }

    private static func remember(
        _ secret: String, _ remembered: Remembered, in memory: inout [String: Remembered], now: ContinuousClock.Instant
    ) {
        if memory.count >= rememberedSecrets { memory = memory.filter { $0.value.until > now } }
        if memory.count >= rememberedSecrets { memory.removeAll() }
        memory[secret] = remembered
    }
}
