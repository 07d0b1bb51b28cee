import HeraldTesting
import Logging
import Postgres

/// A client on a new, empty database of the shared test server.
func withFreshClient<T>(
    options: PostgresClient.Options = PostgresClient.Options(),
    _ body: (PostgresClient, PostgresConfiguration) async throws -> T
) async throws -> T {
    let configuration = try PostgresConfiguration(try await TestDatabases.shared.emptyDatabase())
    let client = PostgresClient(configuration: configuration, options: options, logger: Logger(label: "test"))
    defer { client.shutdown() }
    return try await body(client, configuration)
}
