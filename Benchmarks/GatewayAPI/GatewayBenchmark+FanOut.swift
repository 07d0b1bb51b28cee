import Foundation
import HeraldCore
import Postgres

extension GatewayBenchmark {
    /// The median time until Herald's fan-out rows exist beside the median time of the bare INSERT ... SELECT.
    struct FanOutFigures {
        var rows: Int
        var herald: Duration
        var floor: Duration

        var line: String {
            String(
                format: "fan-out %d rows: herald %.0f ms, INSERT…SELECT floor %.0f ms, ratio %.2f× (goal ≤ 2×)", rows,
                milliseconds(herald), milliseconds(floor), milliseconds(herald) / milliseconds(floor))
        }
    }

    /// Herald's fan-out and the floor, alternately: a warm-up of each, then `options.runs` of each, so both meet
    /// the same table sizes, caches and load.
    /// - Returns: the medians, or `nil` when Herald answered unexpectedly.
    static func fanOut(client: PostgresClient, base: String, options: Options) async throws -> FanOutFigures? {
        print("\n== fan-out: new_feedback to a project of \(options.members) members with 2 devices each")
        let seeding = ContinuousClock.now
        try await seedProject(client: client, members: options.members)
        print("seeded in \(format(seeding.duration(to: .now)))")
        let key = try await APIKeyStore(client: client).create(name: "bench", scope: .send).secret
        _ = try await post(base + "/healthz", key: nil, body: nil)

        var accepts: [Duration] = []
        var expansions: [Duration] = []
        var floors: [Duration] = []
        var rows = 0
        for run in 0...options.runs {
            let label = run == 0 ? "warm-up" : "run \(run)"
            guard let herald = try await heraldFanOut(client: client, base: base, key: key, run: run) else {
                return nil
            }
            let (accepted, expanded, count) = herald
            let (floor, floorRows) = try await floorFanOut(client: client)
            print(
                "\(label): 202 after \(format(accepted)), \(count) delivery rows after \(format(expanded)) (from the "
                    + "request's start); floor: \(floorRows) rows in \(format(floor))")
            guard run > 0 else { continue }
            accepts.append(accepted)
            expansions.append(expanded)
            floors.append(floor)
            rows = count
        }
        print(
            "median: 202 after \(format(median(accepts))), all delivery rows after \(format(median(expansions))); "
                + "floor \(format(median(floors)))")
        return FanOutFigures(rows: rows, herald: median(expansions), floor: median(floors))
    }

    static func seedProject(client: PostgresClient, members: Int) async throws {
        try await client.withTransaction { connection in
            try await connection.execute(
                "INSERT INTO users (external_id, email, name) VALUES ('fan-owner', 'fan-owner@example.com', 'Owner')")
            try await connection.execute(
                """
                INSERT INTO users (external_id, email, name)
                SELECT 'fan-' || i, 'fan-' || i || '@example.com', 'Member ' || i
                FROM generate_series(1, \(members)) i
                """)
            try await connection.execute(
                """
                INSERT INTO projects (external_id, name, owner_id)
                SELECT 'fan-project', 'Fan-out', id FROM users WHERE external_id = 'fan-owner'
                """)
            try await connection.execute(
                """
                INSERT INTO project_members (project_id, user_id)
                SELECT p.id, u.id FROM projects p, users u
                WHERE p.external_id = 'fan-project' AND u.external_id LIKE 'fan-%' AND u.external_id <> 'fan-owner'
                """)
            try await connection.execute(
                """
                INSERT INTO device_tokens (user_id, token, platform, environment)
                SELECT u.id, md5(u.id::text || d) || md5(d || u.id::text), 'iOS', 'sandbox'
                FROM users u, generate_series(1, 2) d
                WHERE u.external_id LIKE 'fan-%' AND u.external_id <> 'fan-owner'
                """)
        }
        try await client.execute("ANALYZE")
    }

    /// One event through Herald: the time until its 202 and until its notification is expanded (all its delivery
    /// rows committed), both from the request's start, and the rows; `nil` when Herald did not accept it.
    static func heraldFanOut(client: PostgresClient, base: String, key: String, run: Int) async throws -> (
        Duration, Duration, Int
    )? {
        let body = """
            {"type":"new_feedback","projectId":"fan-project","actorId":"fan-owner",\
            "feedback":{"id":"fb-\(run)","title":"Dark mode, run \(run)"}}
            """
        let start = ContinuousClock.now
        let (status, text) = try await post(base + "/api/v1/events", key: key, body: body)
        let accepted = ContinuousClock.now
        guard status == 202, let id = extractID(text) else {
            print("unexpected answer \(status): \(text)")
            return nil
        }
        while try await client.query("SELECT state FROM notifications WHERE id = \(id)").scalar(String.self)
            != "expanded"
        {
            try await Task.sleep(for: .milliseconds(1))
        }
        let expanded = ContinuousClock.now
        let rows = try await client.query("SELECT count(*) FROM deliveries WHERE notification_id = \(id)")
            .scalar(Int.self)
        return (start.duration(to: accepted), start.duration(to: expanded), rows)
    }

    /// The floor: the same project's members' active devices inserted as delivery rows of a notification of their
    /// own, into the same table with its indexes, constraints and foreign keys, in one statement and one commit.
    /// The notification is made first (already expanded, so Herald leaves it alone) and is not timed.
    static func floorFanOut(client: PostgresClient) async throws -> (Duration, Int) {
        try await client.withConnection { connection in
            let id = try await connection.query(
                """
                INSERT INTO notifications
                    (kind, type, project_id, project_external_id, content, targets, state, expanded_at)
                SELECT 'event', 'new_feedback', id, external_id, '{}', '{}', 'expanded', now()
                FROM projects WHERE external_id = 'fan-project'
                RETURNING id
                """
            ).scalar(UUID.self)
            let start = ContinuousClock.now
            let rows = try await connection.execute(
                """
                INSERT INTO deliveries (notification_id, user_id, device_token_id, environment, variant)
                SELECT \(id), d.user_id, d.id, d.environment, 'default'
                FROM project_members m JOIN device_tokens d ON d.user_id = m.user_id
                WHERE m.project_id = (SELECT id FROM projects WHERE external_id = 'fan-project')
                  AND d.is_active AND d.kind = 'device'
                """)
            return (start.duration(to: .now), rows)
        }
    }
}
