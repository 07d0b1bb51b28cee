import APNs
import APNsCore
import Foundation
import Glibc
import HeraldCore
import LocalServices
import NIOHTTP1
import Synchronization

/// Drives Debian's Chromium through `chromedriver` with the W3C WebDriver protocol: JSON over HTTP, no client
/// library. One instance owns one chromedriver process and at most one browser session.
final class WebDriver: Sendable {
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"
    /// The key W3C WebDriver uses for an element reference in JSON.
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let driver: Process
    private let logURL: URL
    private let port: Int
    /// The open browser session; a mutex because ``stop()`` may run while a canceled test's command is in flight.
    private let sessionID = Mutex<String?>(nil)

    /// Starts chromedriver on a free port and waits until it accepts sessions.
    /// - Throws: ``Failure`` saying what to install when Chromium or chromedriver is missing.
    init() async throws {
        for program in [Self.chromium, Self.chromedriver] where !FileManager.default.isExecutableFile(atPath: program) {
            throw Failure(
                description:
                    "\(program) is missing: the dashboard test needs Debian's Chromium. "
                    + "Install it with `apt-get install -y chromium chromium-driver`.")
        }
        port = try freeLoopbackPort()
        logURL = FileManager.default.temporaryDirectory.appendingPathComponent("chromedriver-\(UUID()).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        driver = Process()
        driver.executableURL = URL(fileURLWithPath: Self.chromedriver)
        driver.arguments = ["--port=\(port)", "--allowed-ips=127.0.0.1"]
        driver.standardOutput = log
        driver.standardError = log
        try driver.run()
        try log.close()
        do {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                if let status = try? await send(.GET, "/status"), status["ready"] == .bool(true) { return }
                try await Task.sleep(for: .milliseconds(100))
            }
            throw Failure(description: "chromedriver did not become ready: \(output)")
        } catch {
            await stop()
            throw error
        }
    }

    var output: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }

    /// Opens headless Chromium with a window of the given size. Always with `--no-sandbox`: Chromium will not start
    /// its sandbox as root, which these tests often run as, and the browser only loads Herald's dashboard on loopback.
    func startSession(width: Int, height: Int) async throws {
        let capabilities: JSONValue = .object([
            "capabilities": .object([
                "alwaysMatch": .object([
                    "browserName": .string("chrome"),
                    "goog:chromeOptions": .object([
                        "binary": .string(Self.chromium),
                        "args": .array(
                            [
                                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                "--window-size=\(width),\(height)", "--lang=en-US",
                            ].map(JSONValue.string)),
                    ]),
                ])
            ])
        ])
        let answer = try await send(.POST, "/session", capabilities)
        guard let id = answer["sessionId"]?.stringValue else {
            throw Failure(description: "no session id in \(answer)")
        }
        sessionID.withLock { $0 = id }
    }

    /// Ends the browser session (if any) and chromedriver. Safe to call more than once, also from a canceled task.
    func stop() async {
        if let sessionID = sessionID.withLock({ $0.take() }) {
            // A task of its own: a canceled test must still close its browser.
            _ = await Task { try? await send(.DELETE, "/session/\(sessionID)") }.value
        }
        if driver.isRunning {
            // chromedriver and Chromium inherit the test thread's blocked signals, SIGTERM included: only SIGKILL
            // is sure to end them. A browser left over from a failed DELETE is chromedriver's child.
            for child in Self.children(of: driver.processIdentifier) { kill(child, SIGKILL) }
            kill(driver.processIdentifier, SIGKILL)
            driver.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: logURL)
    }

    // MARK: Commands

    func navigate(to url: String) async throws {
        _ = try await session(.POST, "/url", .object(["url": .string(url)]))
    }

    func setWindowSize(width: Int, height: Int) async throws {
        _ = try await session(.POST, "/window/rect", .object(["width": .int(width), "height": .int(height)]))
    }

    /// The first element matching a CSS selector.
    func element(_ selector: String) async throws -> String {
        let answer = try await session(
            .POST, "/element", .object(["using": .string("css selector"), "value": .string(selector)]))
        guard let id = answer[Self.elementKey]?.stringValue else {
            throw Failure(description: "no element reference for \(selector) in \(answer)")
        }
        return id
    }

    func type(_ text: String, into selector: String) async throws {
        let id = try await element(selector)
        _ = try await session(.POST, "/element/\(id)/value", .object(["text": .string(text)]))
    }

    func click(_ selector: String) async throws {
        let id = try await element(selector)
        _ = try await session(.POST, "/element/\(id)/click", .object([:]))
    }

    func text(of selector: String) async throws -> String {
        let id = try await element(selector)
        return try await session(.GET, "/element/\(id)/text").stringValue ?? ""
    }

    /// Runs `script` (a function body) in the page and returns its result.
    func execute(_ script: String, _ arguments: [JSONValue] = []) async throws -> JSONValue {
        try await session(.POST, "/execute/sync", .object(["script": .string(script), "args": .array(arguments)]))
    }

    /// Polls `script` until it returns true, or fails with `what` and the page's last state after `timeout`.
    func wait(
        for what: String, timeout: Duration = .seconds(15), until script: String
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if try await execute(script) == .bool(true) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        let state = try? await execute(
            "return document.body.dataset.state + ' / ' + document.getElementById('error').textContent")
        throw Failure(description: "timed out waiting for \(what); page state: \(state?.stringValue ?? "unknown")")
    }

    /// A PNG of the visible page.
    func screenshot() async throws -> Data {
        guard let text = try await session(.GET, "/screenshot").stringValue, let png = Data(base64Encoded: text)
        else {
            throw Failure(description: "the screenshot was not base64")
        }
        return png
    }

    // MARK: Transport

    private func session(_ method: HTTPMethod, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        guard let sessionID = sessionID.withLock({ $0 }) else { throw Failure(description: "no browser session") }
        return try await send(method, "/session/\(sessionID)\(path)", body)
    }

    /// Sends one command and returns its `value`, or throws WebDriver's error and message.
    private func send(_ method: HTTPMethod, _ path: String, _ body: JSONValue? = nil) async throws -> JSONValue {
        let (status, data) = try await LoopbackHTTP.send(
            method, port: port, path: path, json: try body.map { try JSONEncoder().encode($0) })
        let answer = try? JSONDecoder().decode(JSONValue.self, from: data)
        guard status == 200, let value = answer?["value"] else {
            let error = answer?["value"]?["error"]?.stringValue ?? "HTTP \(status)"
            let message = answer?["value"]?["message"]?.stringValue ?? String(decoding: data, as: UTF8.self)
            throw Failure(description: "WebDriver \(method) \(path): \(error): \(message)")
        }
        return value
    }

    /// The processes whose parent is `pid`, from `/proc/*/stat`.
    private static func children(of pid: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let child = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ", options: .backwards)
            else { return nil }
            // Fields after the command name: state, then the parent's pid.
            let fields = stat[afterName.upperBound...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid ? child : nil
        }
    }
}
