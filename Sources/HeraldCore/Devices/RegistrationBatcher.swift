import APNsCore

/// Registers devices in batches when many arrive at once, so a burst costs a few statements and commits instead of
/// one each. A registration that finds no batch running starts one at once, so a lone request waits for nothing.
///
/// While a batch runs, a few registrations arriving meanwhile wait for it and then go together as the next batch: under
/// load the batches grow rather than the statements, so the database parses, plans and commits once for many rows.
/// Once `minimumParallelBatchSize` wait, they start a batch beside the running one, so the database works on one
/// while the other waits for its commit to be flushed, and a batch held up by a lock or a slow disk does not hold up
/// every registration behind it.
///
/// Batches never hold the same token twice (the second waits for the next batch), batches running at once never share
/// a user, and a batch that fails is retried one registration at a time, so one bad registration never fails the
/// others.
public actor RegistrationBatcher {
    private struct Pending {
        let registration: DeviceRegistration
        let user: ExternalID
        let continuation: CheckedContinuation<(device: Device, created: Bool), any Error>
    }

    private let store: DeviceStore
    private let maximumBatches: Int
    private let maximumBatchSize: Int
    private let minimumParallelBatchSize: Int
    private var pending: [Pending] = []
    private var running = 0
    /// The users of the batches running: a registration waits while its user is in one, so batches running at once
    /// never wait for each other's lock on a user's devices.
    private var busyUsers: Set<ExternalID> = []

    /// - Parameters:
    ///   - maximumBatches: Statements in flight at once; keep it below the pool's size.
    ///   - maximumBatchSize: Registrations per statement.
    ///   - minimumParallelBatchSize: Registrations that must be waiting before a batch starts beside a running one.
    public init(
        store: DeviceStore, maximumBatches: Int = 4, maximumBatchSize: Int = 256, minimumParallelBatchSize: Int = 16
    ) {
        self.store = store
        self.maximumBatches = max(1, maximumBatches)
        self.maximumBatchSize = max(1, maximumBatchSize)
        self.minimumParallelBatchSize = max(1, minimumParallelBatchSize)
    }

    /// Registers a token for `user`; see ``DeviceStore/register(_:for:)``.
    public func register(_ registration: DeviceRegistration, for user: ExternalID) async throws -> (
        device: Device, created: Bool
    ) {
        try await withCheckedThrowingContinuation { continuation in
            pending.append(Pending(registration: registration, user: user, continuation: continuation))
            startBatchIfRoom()
        }
    }

    private func startBatchIfRoom() {
        while running < maximumBatches, !pending.isEmpty, running == 0 || pending.count >= minimumParallelBatchSize {
            guard startBatch() else { return }
        }
    }

    /// Starts a batch of the waiting registrations whose users no running batch holds; false when there is none.
    private func startBatch() -> Bool {
        var batch: [Pending] = []
        var rest: [Pending] = []
        var tokens: Set<String> = []
        for item in pending {
            if batch.count < maximumBatchSize, !busyUsers.contains(item.user),
                tokens.insert(item.registration.token.hex).inserted
            {
                batch.append(item)
            } else {
                rest.append(item)
            }
        }
        guard !batch.isEmpty else { return false }
        pending = rest
        running += 1
        busyUsers.formUnion(batch.map(\.user))
        Task { await self.run(batch) }
        return true
    }

    private func run(_ batch: [Pending]) async {
        if batch.count == 1 {
            await registerAlone(batch[0])
        } else {
            do {
                let results = try await store.register(batch: batch.map { ($0.registration, $0.user) })
                for item in batch {
                    if let result = results[item.registration.token.hex] {
                        item.continuation.resume(returning: result)
                    } else {
                        item.continuation.resume(throwing: DomainError.notFound("no user has this id", field: "userId"))
                    }
                }
            } catch {
                for item in batch { await registerAlone(item) }
            }
        }
        running -= 1
        busyUsers.subtract(batch.map(\.user))
        startBatchIfRoom()
    }

    private func registerAlone(_ item: Pending) async {
        do {
            item.continuation.resume(returning: try await store.register(item.registration, for: item.user))
        } catch {
            item.continuation.resume(throwing: error)
        }
    }
}
