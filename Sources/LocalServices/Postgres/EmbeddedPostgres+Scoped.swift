extension EmbeddedPostgres {
    /// The database a benchmark measures: the server at `url` when one is named, or else a private cluster started
    /// with `options` and stopped however `body` ends, so that a run failing midway leaves no server behind.
    public static func withDatabase<Result>(
        url: String?, options: Options, _ body: (_ url: String) async throws -> Result
    ) async throws -> Result {
        if let url { return try await body(url) }
        return try await withCluster(options: options) { try await body($0.url()) }
    }

    /// Runs `body` on a cluster started with `options`, and stops the cluster however `body` ends.
    public static func withCluster<Result>(
        options: Options, _ body: (EmbeddedPostgres) async throws -> Result
    ) async throws -> Result {
        let cluster = try await start(options: options)
        let result: Result
        do {
            result = try await body(cluster)
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
        return result
    }
}
