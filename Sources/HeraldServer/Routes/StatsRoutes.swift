import Foundation
import HTTPTypes
import HeraldCore
import Hummingbird
import NIOCore

/// Seed §3.2: how deliveries fared recently, per notification type, by failure reason and, for charts, over time.
///
/// Requests asking the same question (window as written, buckets, app) share one answer, counted and encoded once,
/// while it is made and for a 8640th of the window after (0.4 s for an hour, 10 s for a day), at most
/// `longestSharing` (a minute by default): a dashboard in many tabs, or a client asking for 90 days in a loop, then
/// costs one count per minute instead of one per request. The answer's `until` says when it was counted.
struct StatsRoutes {
    struct Question: Hashable, Sendable {
        var windowText: String
        var window: Duration
        var buckets: Int?
        var app: String?
    }

    static func freshness(of window: Duration, longest: Duration) -> Duration { min(window / 8640, longest) }

    let answers: SharedAnswers<Question, ByteBuffer, ContinuousClock>

    init(logs: DeliveryLogStore, longestSharing: Duration) {
        answers = SharedAnswers(
            clock: ContinuousClock(), freshness: { Self.freshness(of: $0.window, longest: longestSharing) },
            make: { question in
                let stats = try await logs.stats(window: question.window, buckets: question.buckets, app: question.app)
                let encoder = HeraldRequestContext.makeResponseEncoder()
                return ByteBuffer(bytes: try encoder.encode(StatsResponse(stats, window: question.windowText)))
            })
    }

    func register(on router: Router<HeraldRequestContext>) {
        router.on("/api/v1/stats", method: .get) { request, context in
            _ = try context.requireAPIKey(.read)
            let parameters = request.uri.queryParameters
            for (name, _) in parameters where !["window", "buckets", "appId"].contains(name) {
                throw APIError.validation("is not a parameter of this route", field: String(name))
            }
            let text = parameters.get("window")
            let window = try StatsWindow.parse(text)
            let buckets = try StatsWindow.parseBuckets(parameters.get("buckets"))
            let named = try parameters.get("appId").map { (text) throws(APIError) in
                guard let id = ExternalID(text) else { throw JSONObject.badID("appId") }
                return id
            }
            let app = try context.appScope.narrow(named)
            let body = try await answers.answer(
                Question(windowText: text ?? "1h", window: window, buckets: buckets, app: app?.rawValue))
            return Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .contentLength: "\(body.readableBytes)"],
                body: .init(byteBuffer: body))
        }
    }
}
