import HeraldCore
import Hummingbird

/// Seed §3.2: how deliveries fared recently, per notification type, by failure reason and, for charts, over time.
struct StatsRoutes {
    let answers: StatsAnswers<ContinuousClock>

    init(logs: DeliveryLogStore) {
        answers = StatsAnswers(clock: ContinuousClock()) { question in
            try await logs.stats(window: question.window, buckets: question.buckets, app: question.app)
        }
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
            let stats = try await answers.answer(.init(window: window, buckets: buckets, app: app?.rawValue))
            return StatsResponse(stats, window: text ?? "1h")
        }
    }
}
