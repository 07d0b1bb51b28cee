import HeraldCore
import Logging
import Postgres

/// Tells the key router at once when apps or signing keys change (`NOTIFY` on ``HeraldChannel/signingKeys``), so a
/// retired key gets no further push; without a listening session the router's periodic re-read still applies
/// changes within seconds.
struct SigningChangeListener {
    let database: PostgresClient
    let logger: Logger

    /// Signals `changed` for every notification until cancelled, then closes its session.
    func run(signalling changed: WakeSignal) async {
        let listener: PostgresListener
        do {
            listener = try PostgresListener(configuration: database.configuration, logger: logger)
        } catch {
            logger.warning(
                "cannot listen for changed signing keys; reading them every few seconds only",
                metadata: ["error": "\(error)"])
            return
        }
        do {
            try await listener.listen(on: HeraldChannel.signingKeys) { changes in
                await withTaskCancellationHandler {
                    for await _ in changes { await changed.signal() }
                } onCancel: {
                    listener.shutdown()
                }
            }
        } catch {
            if !Task.isCancelled {
                logger.warning(
                    "LISTEN for changed signing keys failed; reading them every few seconds only",
                    metadata: ["error": "\(error)"])
            }
        }
        await listener.close()
    }
}
