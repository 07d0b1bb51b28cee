import Synchronization

/// The mock's shared, lock-protected state: records, counters, scripted answers and faults.
final class MockState: Sendable {
    struct Faults {
        var goAwayAfterResponses: Int?
        var dropAfterResponses: Int?
        var responseDelay: Duration = .zero
        /// Device tokens (lowercase) whose pushes kill the connection they arrive on.
        var killingTokens: Set<String> = []
    }

    /// What to do to a connection after a response.
    enum Trigger: Equatable {
        case none, goAway, drop
    }

    private struct Storage {
        var records: [MockRecordedRequest] = []
        var responses = 0
        var scripts: [(prefix: String, verdict: MockVerdict)] = []
        var faults = Faults()
        var peakConcurrentStreams = 0
        var connections = 0
        var killedConnections = 0
    }

    private let storage = Mutex(Storage())
    let recordsRequests: Bool
    private let onRequest: (@Sendable (MockRecordedRequest) -> Void)?

    init(recordsRequests: Bool, onRequest: (@Sendable (MockRecordedRequest) -> Void)? = nil) {
        self.recordsRequests = recordsRequests
        self.onRequest = onRequest
    }

    /// Whether requests are captured in full, to keep them or to hand them to the observer.
    var capturesRequests: Bool { recordsRequests || onRequest != nil }

    func nextConnectionID() -> Int {
        storage.withLock {
            $0.connections += 1
            return $0.connections
        }
    }

    var connectionCount: Int { storage.withLock { $0.connections } }
    var records: [MockRecordedRequest] { storage.withLock { $0.records } }
    var responseCount: Int { storage.withLock { $0.responses } }
    var peakConcurrentStreams: Int { storage.withLock { $0.peakConcurrentStreams } }
    var responseDelay: Duration { storage.withLock { $0.faults.responseDelay } }
    var killedConnectionCount: Int { storage.withLock { $0.killedConnections } }

    /// Whether a push to `token` (the request path's last part) kills its connection.
    func killsConnection(forDeviceToken token: Substring) -> Bool {
        storage.withLock { storage in
            !storage.faults.killingTokens.isEmpty && storage.faults.killingTokens.contains(token.lowercased())
        }
    }

    func connectionKilled() {
        storage.withLock { $0.killedConnections += 1 }
    }

    func observeConcurrentStreams(_ count: Int) {
        storage.withLock { $0.peakConcurrentStreams = max($0.peakConcurrentStreams, count) }
    }

    func script(prefix: String, verdict: MockVerdict) {
        storage.withLock { $0.scripts.append((prefix.lowercased(), verdict)) }
    }

    func clearScripts() {
        storage.withLock { $0.scripts.removeAll() }
    }

    func scriptedVerdict(forDeviceToken token: Substring) -> MockVerdict? {
        storage.withLock { storage in
            guard !storage.scripts.isEmpty else { return nil }
            let lowered = token.lowercased()
            return storage.scripts.last { lowered.hasPrefix($0.prefix) }?.verdict
        }
    }

    func updateFaults(_ update: (inout Faults) -> Void) { storage.withLock { update(&$0.faults) } }

    /// Counts a response (and records its request); one-shot faults fire on the response that reaches them.
    func responded(_ record: MockRecordedRequest?) -> Trigger {
        if let record { onRequest?(record) }
        return storage.withLock { storage in
            if recordsRequests, let record { storage.records.append(record) }
            storage.responses += 1
            if let limit = storage.faults.goAwayAfterResponses, storage.responses >= limit {
                storage.faults.goAwayAfterResponses = nil
                return .goAway
            }
            if let limit = storage.faults.dropAfterResponses, storage.responses >= limit {
                storage.faults.dropAfterResponses = nil
                return .drop
            }
            return .none
        }
    }
}
