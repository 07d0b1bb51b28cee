import APNs
import APNsCore
import Foundation
import FoundationNetworking
import HeraldCore
import HeraldTesting
import LocalServices
import Postgres
import Testing

extension Networked {
    /// `/dashboard` in headless Chromium against the built `herald serve` and a seeded database: a wrong key is
    /// refused, a read key shows the seeded counts in the totals, the chart and the tables, a device's and a
    /// notification's history open, filters narrow the list, and the page fits a phone. Screenshots are kept in
    /// `HERALD_TEST_ARTIFACTS` (default `.build/test-artifacts` in the package).
    @Suite struct DashboardBrowserTests {
        typealias Serve = HeraldServeDeliveryTests

        /// Twelve finished deliveries of `release` spread over the last 18 hours, alternating between two devices.
        struct Seeded {
            static let sent = 7
            static let failed = 3
            static let tokenExpired = 2
            static let failedReason = "DeviceTokenNotForTopic"
            static let expiredReason = "Unregistered"
            var tokens: [String]
            var deliveriesPerDevice: Int
        }

        static func seed(_ harness: EngineHarness) async throws -> Seeded {
            let tokens = [EngineHarness.token("da", 1), EngineHarness.token("db", 2)]
            var devices: [(user: UUID, device: UUID)] = []
            for (index, token) in tokens.enumerated() {
                let user = try await harness.insertUser(["ann", "bob"][index])
                devices.append((user, try await harness.insertDevice(user: user, token: token)))
            }
            // Bob's device belongs to a second app; ann's joins the default app when the gateway starts. Before any
            // log row: statistics count a row for the app its device had when the row was written.
            try await harness.client.execute(
                """
                WITH two AS (
                    INSERT INTO apps (external_id, name, bundle_id, team_id, default_environment)
                    VALUES ('two', 'Second app', 'com.example.second', 'TEAM000002', 'sandbox') RETURNING id
                )
                UPDATE device_tokens SET app_id = (SELECT id FROM two) WHERE id = \(devices[1].device)
                """)
            let outcomes: [(state: String, status: Int, reason: String?)] =
                Array(repeating: ("sent", 200, nil), count: Seeded.sent)
                + Array(repeating: ("failed", 400, Seeded.failedReason), count: Seeded.failed)
                + Array(repeating: ("token_expired", 410, Seeded.expiredReason), count: Seeded.tokenExpired)
            var notification = UUID()
            for (index, outcome) in outcomes.enumerated() {
                if index % 2 == 0 {
                    notification = try await harness.insertNotification(
                        .alert(title: "Release", body: "Build \(index / 2)"), type: "release")
                }
                let (user, device) = devices[index % 2]
                let secondsAgo = Double(index + 1) * 90 * 60
                // A finished delivery is its final log row; the notification was made before it.
                let delivery = UUID()
                try await harness.client.execute(
                    """
                    UPDATE notifications SET created_at = now() - \(secondsAgo + 60) * interval '1 second'
                    WHERE id = \(notification) AND created_at > now() - \(secondsAgo + 60) * interval '1 second'
                    """)
                try await harness.client.execute(
                    """
                    INSERT INTO push_notification_logs (user_id, device_token_id, notification_id, delivery_id,
                        notification_type, status, apns_id, environment, attempt, http_status, apns_reason,
                        latency_ms, created_at)
                    VALUES (\(user), \(device), \(notification), \(delivery), 'release', \(outcome.state),
                        \(delivery), 'sandbox', 1, \(outcome.status), \(outcome.reason), \(Double(20 + index)),
                        now() - \(secondsAgo) * interval '1 second')
                    """)
            }
            // Ann opened the newest push.
            try await harness.client.execute(
                """
                INSERT INTO push_interactions (
                    notification_id, device_token_id, user_id, app_id, notification_type, action, sent_at)
                SELECT l.notification_id, l.device_token_id, l.user_id, d.app_id, l.notification_type, 'opened',
                    l.created_at
                FROM push_notification_logs l JOIN device_tokens d ON d.id = l.device_token_id
                ORDER BY l.created_at DESC LIMIT 1
                """)
            return Seeded(tokens: tokens, deliveriesPerDevice: outcomes.count / devices.count)
        }

        /// Where screenshots go: `HERALD_TEST_ARTIFACTS`, else `.build/test-artifacts` in the package root.
        static func artifactsDirectory() throws -> URL {
            let directory =
                ProcessInfo.processInfo.environment["HERALD_TEST_ARTIFACTS"].map { URL(fileURLWithPath: $0) }
                ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/test-artifacts")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory
        }

        static func keep(_ png: Data, as name: String) throws {
            let url = try artifactsDirectory().appendingPathComponent(name)
            try png.write(to: url)
            print("dashboard screenshot: \(url.path)")
        }

        /// The `title` attribute of the element matching `selector`: an id button's "Device <uuid>".
        static func title(_ browser: WebDriver, _ selector: String) async throws -> String {
            try await browser.execute(
                "return document.querySelector(arguments[0]).title;", [.string(selector)]
            ).stringValue ?? ""
        }

        /// Grows the window to the page's height, so the screenshot shows all of it, and keeps the PNG.
        static func keepFullPage(_ browser: WebDriver, width: Int, as name: String) async throws {
            // Twice: at its new width the page may be taller than measured at the old one.
            for _ in 0..<2 {
                let height =
                    try await browser.execute(
                        "return document.documentElement.scrollHeight + window.outerHeight - window.innerHeight;"
                    ).intValue ?? 0
                try await browser.setWindowSize(width: width, height: min(max(height, 600), 6000))
            }
            _ = try await browser.execute("window.scrollTo(0, 0); return null;")
            try keep(try await browser.screenshot(), as: name)
        }

        /// The trimmed cell texts of each body row of the table matching `selector`.
        static func rows(_ browser: WebDriver, _ selector: String) async throws -> [[String]] {
            let value = try await browser.execute(
                """
                return Array.from(document.querySelectorAll(arguments[0] + ' tbody tr'))
                    .map(row => Array.from(row.cells).map(cell => cell.textContent.trim()));
                """, [.string(selector)])
            guard case .array(let rows) = value else { return [] }
            return rows.map { row in
                guard case .array(let cells) = row else { return [] }
                return cells.map { $0.stringValue ?? "" }
            }
        }

        static func rowCount(_ selector: String, is count: Int) -> String {
            "return document.querySelectorAll('\(selector) tbody tr').length === \(count);"
        }

        @Test func theDashboardShowsTheSeededDeliveries() async throws {
            let harness = try await EngineHarness.start()
            let seeded = try await Self.seed(harness)
            let keyFile = EngineHarness.keyFile()
            defer { try? FileManager.default.removeItem(atPath: keyFile) }
            let gateway = try await Serve.startGateway(harness, keyFile: keyFile)
            let created = try await BuiltProgram.herald.run(
                ["keys", "create", "--name", "dashboard", "--scope", "read"],
                environment: ["DATABASE_URL": harness.databaseURL])
            #expect(created.status == 0, "\(created.output)")
            let readKey = try #require(created.output.split(separator: "\n").first.map(String.init))
            let root = String(gateway.base.dropLast("/api/v1".count))

            let (page, response) = try await URLSession.shared.data(from: URL(string: "\(root)/dashboard")!)
            let http = try #require(response as? HTTPURLResponse)
            #expect(http.statusCode == 200)
            #expect(http.value(forHTTPHeaderField: "Content-Type") == "text/html; charset=utf-8")
            #expect(http.value(forHTTPHeaderField: "Content-Security-Policy")?.hasPrefix("default-src 'self'") == true)
            #expect(http.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
            #expect(String(decoding: page, as: UTF8.self).contains(#"<meta name="viewport""#))

            let browser = try await WebDriver()
            do {
                try await browser.startSession(width: 1280, height: 1000)
                try await Self.drive(browser, root: root, key: readKey, seeded: seeded)
            } catch {
                await browser.stop()
                throw error
            }
            await browser.stop()
            try await harness.stop()
        }

        static func drive(_ browser: WebDriver, root: String, key: String, seeded: Seeded) async throws {
            try await browser.navigate(to: "\(root)/dashboard")
            try await browser.wait(for: "the key form", until: "return document.body.dataset.state === 'login';")

            try await browser.type("hk_not_a_key", into: "#api-key")
            try await browser.click("#key-submit")
            try await browser.wait(
                for: "the refusal of a wrong key",
                until: "return document.getElementById('error').textContent.includes('not accepted');")
            #expect(try await browser.execute("return document.getElementById('login').hidden;") == .bool(false))
            try keep(try await browser.screenshot(), as: "dashboard-login.png")

            try await browser.type(key, into: "#api-key")
            try await browser.click("#key-submit")
            let total = Seeded.sent + Seeded.failed + Seeded.tokenExpired
            try await browser.wait(
                for: "the dashboard to fill",
                until: "return document.body.dataset.state === 'ready' && "
                    + "document.querySelectorAll('#deliveries tbody tr').length === \(total);")
            #expect(
                try await browser.execute("return sessionStorage.getItem('herald.apiKey');") == .string(key),
                "the key is kept for the browser session")

            #expect(try await browser.text(of: "#total-sent") == "\(Seeded.sent)")
            #expect(try await browser.text(of: "#total-failed") == "\(Seeded.failed)")
            #expect(try await browser.text(of: "#total-token-expired") == "\(Seeded.tokenExpired)")
            #expect(try await browser.text(of: "#total-finished") == "\(total)")
            #expect(try await browser.text(of: "#total-opened") == "1")
            // The outbox panel: nothing waits (every seeded delivery finished), and the gateway's engine shows itself.
            #expect(
                try await rows(browser, "#outbox-deliveries").map { $0.dropFirst().allSatisfy { $0 == "0" } } == [
                    true, true,
                ])
            try await browser.wait(for: "the delivering process", until: rowCount("#outbox-workers", is: 1))
            let chart = try await browser.execute(
                """
                const chart = document.querySelector('#chart svg');
                return chart ? {buckets: chart.dataset.buckets, sent: chart.dataset.sent, failed: chart.dataset.failed,
                    tokenExpired: chart.dataset.tokenExpired, bars: chart.querySelectorAll('rect').length} : null;
                """)
            #expect(chart["buckets"] == .string("24"))
            #expect(chart["sent"] == .string("\(Seeded.sent)"))
            #expect(chart["failed"] == .string("\(Seeded.failed)"))
            #expect(chart["tokenExpired"] == .string("\(Seeded.tokenExpired)"))
            #expect(chart["bars"] == .int(total), "one bar per seeded delivery, each in its own hour")
            #expect(
                try await rows(browser, "#reasons") == [
                    [Seeded.failedReason, "failed", "\(Seeded.failed)"],
                    [Seeded.expiredReason, "token_expired", "\(Seeded.tokenExpired)"],
                ])
            let latest = try await rows(browser, "#deliveries")
            #expect(latest.count == total)
            #expect(latest.first?[1] == "sent" && latest.first?[2] == "release" && latest.first?[3] == "ann")
            #expect(latest.filter { $0[1] == "failed" }.allSatisfy { $0[8] == Seeded.failedReason })
            let html = try await browser.execute("return document.documentElement.outerHTML;").stringValue ?? ""
            for token in seeded.tokens { #expect(!html.contains(token), "no device token on the page") }
            try await keepFullPage(browser, width: 1280, as: "dashboard.png")
            try await browser.setWindowSize(width: 1280, height: 1000)

            let firstDevice = "#deliveries tbody tr:first-child td:nth-child(5) button"
            let firstNotification = "#deliveries tbody tr:first-child td:nth-child(6) button"
            try await browser.click(firstDevice)
            try await browser.wait(
                for: "the device's history", until: rowCount("#history-log", is: seeded.deliveriesPerDevice))
            #expect(try await browser.text(of: "#history-title") == (try await title(browser, firstDevice)))

            try await browser.click(firstNotification)
            try await browser.wait(
                for: "the notification's history", until: rowCount("#history-deliveries", is: 2))
            #expect(try await browser.text(of: "#history-title") == (try await title(browser, firstNotification)))
            try await browser.wait(for: "the notification's attempts", until: rowCount("#history-log", is: 2))
            #expect(try await rows(browser, "#history-interactions").map { [$0[0], $0[2]] } == [["ann", "opened"]])
            _ = try await browser.execute("document.getElementById('history').scrollIntoView(); return null;")
            try keep(try await browser.screenshot(), as: "dashboard-history.png")

            _ = try await browser.execute(
                "document.querySelector('#filters select[name=status]').value = 'failed'; return null;")
            try await browser.click("#filters button[type=submit]")
            try await browser.wait(for: "the status filter", until: rowCount("#deliveries", is: Seeded.failed))
            #expect(try await rows(browser, "#deliveries").allSatisfy { $0[1] == "failed" })
            try await browser.click("#filters button[type=reset]")
            try await browser.wait(for: "the cleared filter", until: rowCount("#deliveries", is: total))

            #expect(try await browser.execute("return document.getElementById('app-filter').hidden;") == .bool(false))
            _ = try await browser.execute(
                """
                const apps = document.getElementById('app');
                apps.value = 'two';
                apps.dispatchEvent(new Event('change'));
                return null;
                """)
            try await browser.wait(
                for: "the second app's deliveries",
                until: "return document.body.dataset.state === 'ready' && "
                    + "document.getElementById('total-finished').textContent === '\(seeded.deliveriesPerDevice)';")
            try await browser.wait(
                for: "the second app's rows", until: rowCount("#deliveries", is: seeded.deliveriesPerDevice))
            #expect(try await rows(browser, "#deliveries").allSatisfy { $0[3] == "bob" })
            _ = try await browser.execute(
                """
                const apps = document.getElementById('app');
                apps.value = '';
                apps.dispatchEvent(new Event('change'));
                return null;
                """)
            try await browser.wait(for: "every app's rows again", until: rowCount("#deliveries", is: total))

            try await browser.click("#history-close")
            try await browser.setWindowSize(width: 390, height: 844)
            try await browser.wait(
                for: "the chart to be drawn for a phone",
                until: "const chart = document.querySelector('#chart svg'); "
                    + "return window.innerWidth <= 400 && !!chart && Number(chart.dataset.width) <= window.innerWidth;")
            #expect(
                try await browser.execute(
                    "return document.documentElement.scrollWidth <= window.innerWidth;") == .bool(true),
                "nothing but the tables' own scroll areas is wider than a phone")
            try await keepFullPage(browser, width: 390, as: "dashboard-phone.png")

            try await browser.click("#forget")
            try await browser.wait(
                for: "the key to be forgotten", until: "return document.body.dataset.state === 'login';")
            #expect(try await browser.execute("return sessionStorage.getItem('herald.apiKey');") == .null)
        }
    }
}
