import HeraldTesting
import Logging
import Postgres
import Testing

@Suite(.sharesMachine, .timeLimit(.minutes(1))) struct ListenNotifyTests {
    @Test func listenReceivesNotifyFromAnotherConnection() async throws {
        try await withFreshClient { client, configuration async throws in
            let listener = try PostgresListener(configuration: configuration, logger: Logger(label: "test"))
            defer { listener.shutdown() }
            let received = try await listener.listen(on: "deliveries") { notifications in
                try await client.execute("SELECT pg_notify(\("deliveries"), \("wake up"))")
                try await client.execute("SELECT pg_notify(\("other-channel"), \("ignored"))")
                try await client.execute("NOTIFY deliveries, 'second'")
                var payloads: [String] = []
                for await notification in notifications {
                    #expect(notification.channel == "deliveries")
                    payloads.append(notification.payload)
                    if payloads.count == 2 { break }
                }
                return payloads
            }
            #expect(received == ["wake up", "second"])
        }
    }

    /// `close()` returns once the listening session has closed, and the listener refuses new subscriptions after.
    @Test func closeEndsTheSessionAndRefusesNewListens() async throws {
        try await withFreshClient { _, configuration async throws in
            let listener = try PostgresListener(configuration: configuration, logger: Logger(label: "test"))
            try await listener.listen(on: "before") { _ in }
            await listener.close()
            await #expect(throws: PostgresError.self) { try await listener.listen(on: "after") { _ in } }
        }
    }

    @Test func channelNamesAreQuotedNotInjected() async throws {
        try await withFreshClient { client, configuration async throws in
            let listener = try PostgresListener(configuration: configuration, logger: Logger(label: "test"))
            defer { listener.shutdown() }
            let channel = "odd \"name\"; DROP TABLE x"
            let payload = try await listener.listen(on: channel) { notifications -> String? in
                try await client.execute("SELECT pg_notify(\(channel), \("ok"))")
                for await notification in notifications { return notification.payload }
                return nil
            }
            #expect(payload == "ok")
        }
    }

    @Test func listenerReconnectsAfterItsSessionIsTerminated() async throws {
        try await withFreshClient { client, configuration async throws in
            let listener = try PostgresListener(configuration: configuration, logger: Logger(label: "test"))
            defer { listener.shutdown() }
            let payload = try await listener.listen(on: "events") { notifications -> String? in
                try await client.execute(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE query LIKE 'LISTEN%' AND datname = current_database()
                    """
                )
                // Keep notifying until the re-established session hears one.
                let sender = Task {
                    for attempt in 0..<100 {
                        try await client.execute("SELECT pg_notify(\("events"), \("after-\(attempt)"))")
                        try await Task.sleep(for: .milliseconds(50))
                    }
                }
                defer { sender.cancel() }
                for await notification in notifications { return notification.payload }
                return nil
            }
            #expect(payload?.hasPrefix("after-") == true)
        }
    }
}
