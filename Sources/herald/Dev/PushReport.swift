import APNsCore
import APNsMock
import Foundation

/// One line per push apns-mock answers, so a newcomer sees pushes arrive: when, its apns-id, topic, push type,
/// alert title and the answer, control characters escaped. Never the device token.
enum PushReport {
    static func line(for request: MockRecordedRequest, at date: Date = Date()) -> String {
        let time = ISO8601DateFormatter.string(from: date, timeZone: .current, formatOptions: [.withFullTime])
        let apnsID: String
        let answer: String
        switch request.verdict {
        case .accept(let id):
            apnsID = id
            answer = "accepted"
        case .reject(let status, let reason, _):
            apnsID = request.header("apns-id") ?? "-"
            answer = "refused: \(status) \(reason)"
        case .stall:
            apnsID = request.header("apns-id") ?? "-"
            answer = "not answered"
        case .answer(let status, let headers, _):
            apnsID = headers["apns-request-id"] ?? "-"
            answer = "answered \(status)"
        }
        let what =
            request.path?.hasPrefix("/3/") == false ? "\(request.method ?? "-") \(request.path ?? "-")" : "a push"
        var fields = [
            "apns-mock received \(what) at \(time)", "apns-id \(apnsID)",
            "topic \(request.header("apns-topic") ?? "-")", "type \(request.header("apns-push-type") ?? "-")",
        ]
        if let title = alertTitle(request.body) { fields.append("title \"\(title)\"") }
        // The title and headers are API input: escaped, they cannot send escape sequences to the terminal.
        return TerminalText.escapingControls(fields.joined(separator: ", ") + ": " + answer)
    }

    /// `aps.alert.title`, else the alert's body (a plain-string alert is one).
    static func alertTitle(_ body: [UInt8]) -> String? {
        guard let alert = try? JSONDecoder().decode(Payload.self, from: Data(body)).aps.alert else { return nil }
        return alert.title ?? alert.body
    }
}
