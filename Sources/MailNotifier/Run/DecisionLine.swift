import Foundation

/// One line of `mail-notifier` output: `{"emailId": …, "decision": …, "reason": …}`.
public struct DecisionLine: Hashable, Sendable, Codable {
    public var emailId: String
    /// `notified`, `badge-only`, `suppressed`, or `failed` when Herald did not accept a due banner.
    public var decision: String
    /// What decided it: `vip`, `passed`, `first-launch`, `recency`, a filter's name, `duplicate`,
    /// `batch-limit`, `active-folder`, or a `herald-…` error code.
    public var reason: String

    public init(_ decision: NotificationDecision) {
        self.emailId = decision.emailId.rawValue
        self.decision = decision.kind.rawValue
        self.reason = decision.reason.name
    }

    /// The line as compact JSON with sorted keys.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding three strings cannot fail.
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }
}
