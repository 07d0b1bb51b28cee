import Foundation
import HeraldWebhook

/// The delivery webhook's settings: `HERALD_WEBHOOK_URL` and `HERALD_WEBHOOK_SECRET`.
enum WebhookSettings {
    /// The webhook's configuration, or nil when no URL is set.
    /// - Throws: ``WebhookSettingsError`` for a URL that is not http(s), or a URL without a secret.
    static func resolve(environment: [String: String]) throws(WebhookSettingsError) -> DeliveryWebhook.Configuration? {
        guard let text = environment["HERALD_WEBHOOK_URL"], !text.isEmpty else { return nil }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme ?? "") else { throw .invalidURL }
        guard let secret = environment["HERALD_WEBHOOK_SECRET"], !secret.isEmpty else { throw .missingSecret }
        return DeliveryWebhook.Configuration(url: url, secret: secret)
    }
}

/// A webhook setting that cannot be used.
enum WebhookSettingsError: Error, Equatable, CustomStringConvertible, Sendable {
    case invalidURL
    case missingSecret

    var description: String {
        switch self {
        case .invalidURL: "HERALD_WEBHOOK_URL must be an http or https URL"
        case .missingSecret: "HERALD_WEBHOOK_SECRET must be set when HERALD_WEBHOOK_URL is"
        }
    }
}
