import ArgumentParser
import Foundation
import HeraldCore
import Logging
import Postgres

/// `herald logs`: the delivery log, newest first, with the API's filters; `--follow` keeps printing.
struct LogsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logs", abstract: "Show delivery log rows, newest first (never device tokens).")

    @OptionGroup var database: DatabaseOptions
    @Option(help: "User (external id).") var userId: String?
    @Option(help: "Device id (UUID).") var deviceId: String?
    @Option(help: "Project (external id).") var projectId: String?
    @Option(help: "App (its id): rows of its devices only.") var appId: String?
    @Option(help: "Notification id (UUID).") var notificationId: String?
    @Option(help: "Notification type, e.g. new_feedback.") var type: String?
    @Option(help: "sent, failed, token_expired, retrying, expired or canceled.") var status: String?
    @Option(help: "APNs or Herald reason, e.g. Unregistered.") var reason: String?
    @Option(help: "Only rows at or after this RFC 3339 date-time.") var since: String?
    @Option(help: "Only rows before this RFC 3339 date-time.") var until: String?
    @Option(help: "Rows to show.") var limit = 50
    @Flag(help: "Keep printing new rows as they are written.") var follow = false

    func validate() throws {
        if let deviceId, UUID(uuidString: deviceId) == nil { throw ValidationError("--device-id must be a UUID") }
        if let notificationId, UUID(uuidString: notificationId) == nil {
            throw ValidationError("--notification-id must be a UUID")
        }
        if let status, DeliveryLogStatus(rawValue: status) == nil {
            throw ValidationError("unknown --status \(status)")
        }
        if let since, RFC3339Timestamp.parse(since) == nil {
            throw ValidationError("--since must be an RFC 3339 date-time (2026-01-31T09:00:00Z)")
        }
        if let until, RFC3339Timestamp.parse(until) == nil {
            throw ValidationError("--until must be an RFC 3339 date-time (2026-01-31T09:00:00Z)")
        }
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
    }

    func run() async throws {
        let filter = DeliveryLogFilter(
            userID: userId, deviceID: deviceId.flatMap(UUID.init(uuidString:)), projectID: projectId,
            notificationID: notificationId.flatMap(UUID.init(uuidString:)), type: type,
            status: status.flatMap(DeliveryLogStatus.init(rawValue:)), reason: reason,
            since: since.flatMap(RFC3339Timestamp.parse), until: until.flatMap(RFC3339Timestamp.parse), appID: appId)
        let client = try HeraldConfiguration.resolve(database: database).oneSessionClient(label: "herald.logs")
        try await client.closing {
            let store = DeliveryLogStore(client: client)
            let newest = try await store.list(filter, limit: limit)
            for entry in newest { Console.line(Self.format(entry)) }
            guard follow else { return }
            try await followNew(store: store, filter: filter, after: newest.first?.createdAt ?? Date())
        }
    }

    /// Polls for rows created since the last one seen. A row's time is its transaction's start, so rows may
    /// commit slightly out of order: look back a few seconds and skip ids already printed.
    private func followNew(store: DeliveryLogStore, filter: DeliveryLogFilter, after start: Date) async throws {
        var seen: [UUID: Date] = [:]
        var latest = start
        // Runs until interrupted (Ctrl-C ends the process as usual).
        while true {
            let rows = try await store.listNew(filter, since: latest.addingTimeInterval(-5), limit: 1_000)
            for entry in rows where seen[entry.id] == nil && entry.createdAt > start {
                seen[entry.id] = entry.createdAt
                Console.line(Self.format(entry))
                latest = max(latest, entry.createdAt)
            }
            seen = seen.filter { $0.value > latest.addingTimeInterval(-10) }
            try await Task.sleep(for: .seconds(1))
        }
    }

    static func format(_ entry: DeliveryLogEntry) -> String {
        let time = ISO8601DateFormatter().string(from: entry.createdAt)
        var fields = [
            time, entry.status, entry.type, "user=\(entry.userID)",
            "device=\(entry.deviceID?.uuidString.lowercased() ?? "-")",
            "notification=\(entry.notificationID.uuidString.lowercased())",
            "apns-id=\(entry.deliveryID.uuidString.lowercased())", entry.environment, "attempt=\(entry.attempt)",
        ]
        if let status = entry.httpStatus { fields.append("http=\(status)") }
        if let reason = entry.reason { fields.append("reason=\(reason)") }
        if let latency = entry.latencyMs { fields.append(String(format: "%.1fms", latency)) }
        return fields.joined(separator: " ")
    }
}
