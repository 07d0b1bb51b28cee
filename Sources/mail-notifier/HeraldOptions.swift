import ArgumentParser
import Foundation
import MailNotifier

/// Where Herald is, how to authenticate, and whose devices the pushes go to.
struct HeraldOptions: ParsableArguments {
    @Option(name: .customLong("herald-url"), help: "Herald's base URL, e.g. http://127.0.0.1:8080.")
    var heraldURL: String

    @Option(
        name: .customLong("api-key"),
        help: "Herald API key (default: the HERALD_API_KEY environment variable).")
    var apiKey: String?

    @Option(help: "Herald's external id of the mailbox owner.")
    var user: String

    @Option(help: "Seconds to wait for Herald per request.")
    var timeout: Int = 10

    func validate() throws {
        guard let url = URL(string: heraldURL), url.scheme == "http" || url.scheme == "https" else {
            throw ValidationError("--herald-url must be an absolute http or https URL, got '\(heraldURL)'")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be a positive number of seconds") }
    }

    /// A client of Herald; the key is read here so it never has a default that `--help` would print.
    func client() throws -> HeraldConnection {
        guard let key = apiKey ?? ProcessInfo.processInfo.environment["HERALD_API_KEY"] else {
            throw ValidationError("give --api-key or set HERALD_API_KEY")
        }
        // validate() checked the URL.
        return HeraldConnection(
            configuration: HeraldClientConfiguration(
                baseURL: URL(string: heraldURL)!, apiKey: APIKey(key), timeout: .seconds(timeout)))
    }

    /// Herald as the notification center of `user`.
    func notificationCenter(_ client: HeraldConnection) -> HeraldNotificationCenter {
        HeraldNotificationCenter(client: client, userId: user)
    }
}
