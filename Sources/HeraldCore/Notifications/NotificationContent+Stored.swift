import APNsCore
import Postgres

extension NotificationContent {
    /// The contents a stored `notifications.content` holds, by delivery variant.
    ///
    /// The gateway stores rendered APNs payloads by variant (`{"payloads": {"default": {"aps": …}, "voter": …},
    /// "pushType", "priority", "collapseId"}`), since recipients of one event can read different texts; a plain
    /// ``NotificationContent`` document stands for the `default` variant alone.
    static func variants(stored: PostgresJSON) throws -> [String: NotificationContent] {
        let document = try stored.decode(JSONValue.self)
        guard case .object(let payloads)? = document["payloads"] else {
            return ["default": try stored.decode(NotificationContent.self)]
        }
        var contents: [String: NotificationContent] = [:]
        for (variant, payload) in payloads {
            contents[variant] = NotificationContent(payload: payload, options: document)
        }
        return contents
    }

    /// Reads a rendered payload's `aps` and custom keys, and the push options beside the payloads.
    private init(payload: JSONValue, options: JSONValue) {
        let aps = payload["aps"]
        let alert = aps?["alert"]
        var custom: [String: JSONValue] = [:]
        if case .object(let members) = payload {
            for (key, value) in members where key != "aps" { custom[key] = value }
        }
        self.init(
            title: alert?["title"]?.stringValue, subtitle: alert?["subtitle"]?.stringValue,
            body: alert?["body"]?.stringValue ?? alert?.stringValue, badge: aps?["badge"]?.intValue,
            sound: aps?["sound"]?.stringValue,
            threadID: aps?["thread-id"]?.stringValue, category: aps?["category"]?.stringValue,
            contentAvailable: aps?["content-available"]?.intValue.map { $0 == 1 },
            mutableContent: aps?["mutable-content"]?.intValue.map { $0 == 1 },
            data: custom.isEmpty ? nil : custom, pushType: options["pushType"]?.stringValue,
            priority: options["priority"]?.intValue, collapseID: options["collapseId"]?.stringValue)
    }
}
