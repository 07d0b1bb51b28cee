import Postgres
import Synchronization

/// Wakes the delivery engines once pushes are stored: one `NOTIFY` on ``HeraldChannel/deliveries`` now, and one more
/// after it for every push stored meanwhile, however many. A `NOTIFY` in each push's own transaction would make their
/// commits wait for each other on PostgreSQL's lock of the notification queue, one fsync at a time: measured with
/// `ingress-bench`, that held the ingress to about 1,400 stored pushes a second. Without it, concurrent commits share
/// their fsyncs. If a `NOTIFY` is lost, the engines' polling finds the pushes.
final class DeliveryWakeUp: Sendable {
    private struct State {
        var sending = false
        var again = false
    }

    private let client: PostgresClient
    private let state = Mutex(State())

    init(client: PostgresClient) { self.client = client }

    /// Asks for a `NOTIFY` after what has been committed so far.
    func ring() {
        let starts = state.withLock { state in
            if state.sending {
                state.again = true
                return false
            }
            state.sending = true
            return true
        }
        guard starts else { return }
        let client = client
        Task {
            repeat {
                _ = try? await client.query("SELECT pg_notify(\(HeraldChannel.deliveries), '')")
            } while state.withLock { state in
                defer { state.again = false }
                state.sending = state.again
                return state.again
            }
        }
    }
}
