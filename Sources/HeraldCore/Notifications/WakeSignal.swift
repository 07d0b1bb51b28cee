/// A wake-up that can be given before anyone waits: a waiter returns at once if one is pending, else on the next
/// signal, the timeout or cancellation, whichever comes first.
public actor WakeSignal {
    private var pending = false
    private var waiter: CheckedContinuation<Void, Never>?
    private var generation = 0

    public init() {}

    public func signal() {
        if let waiter {
            self.waiter = nil
            waiter.resume()
        } else {
            pending = true
        }
    }

    public func wait(timeout: Duration) async {
        if pending {
            pending = false
            return
        }
        generation += 1
        let current = generation
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            await self?.expire(current)
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { waiter = $0 }
        } onCancel: {
            Task { await self.expire(current) }
        }
        timer.cancel()
    }

    private func expire(_ expected: Int) {
        guard expected == generation, let waiter else { return }
        self.waiter = nil
        waiter.resume()
    }
}
