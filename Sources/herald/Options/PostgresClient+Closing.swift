import Postgres

extension PostgresClient {
    /// Runs `body`, then closes every session and waits until each has ended, whether `body` returned or threw.
    ///
    /// Every command ends its database use this way: the process exits next, and a session still closing then
    /// races the exit-time cleanup of OpenSSL, which libpq uses (a SIGSEGV in libcrypto after `herald serve`
    /// stopped cleanly).
    func closing<T>(after body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await close()
        return try result.get()
    }
}
