import Foundation

/// Apple's rules for the payloads whose shape is fixed: Live Activities (an `event`, a whole-second `timestamp`,
/// `content-state`, and for a start `attributes-type`, `attributes` and an `alert`), widgets and controls
/// (`content-changed: true`). Checked apart from Herald's own payload code.
enum MockPayloadRules {
    /// The push types whose payload the mock reads.
    static let checkedPushTypes: Set<String> = ["liveactivity", "widgets", "controls"]

    /// Apple's reason for refusing `body`, or nil when it is well formed.
    static func refusal(pushType: String, body: [UInt8]) -> String? {
        guard checkedPushTypes.contains(pushType) else { return nil }
        guard let payload = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
            let aps = payload["aps"] as? [String: Any]
        else { return "BadRequestPayload" }
        return pushType == "liveactivity" ? liveActivityRefusal(aps) : widgetRefusal(aps)
    }

    private static func widgetRefusal(_ aps: [String: Any]) -> String? {
        (aps["content-changed"] as? Bool) == true ? nil : "BadRequestPayload"
    }

    private static func liveActivityRefusal(_ aps: [String: Any]) -> String? {
        guard let event = aps["event"] as? String, ["start", "update", "end"].contains(event) else {
            return "BadRequestPayload"
        }
        guard let timestamp = aps["timestamp"] as? NSNumber, isWholeNumber(timestamp) else {
            return "BadRequestPayload"
        }
        guard aps["content-state"] is [String: Any] else { return "BadRequestPayload" }
        for date in ["stale-date", "dismissal-date"] where aps[date] != nil {
            guard let value = aps[date] as? NSNumber, isWholeNumber(value) else { return "BadRequestPayload" }
        }
        if aps["dismissal-date"] != nil, event != "end" { return "BadRequestPayload" }
        if event == "start" {
            guard aps["attributes-type"] is String, aps["attributes"] is [String: Any], aps["alert"] != nil else {
                return "BadRequestPayload"
            }
        }
        return nil
    }

    private static func isWholeNumber(_ number: NSNumber) -> Bool {
        number.doubleValue == number.doubleValue.rounded() && number.doubleValue >= 0
    }
}
