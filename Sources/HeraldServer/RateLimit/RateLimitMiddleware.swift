import HeraldCore
import Hummingbird
import Prometheus

/// Bounds each caller's requests: one token bucket per API key (its own `--rate-limit`, else the server's limit)
/// and one per user-token subject. A request over the limit is answered 429 with `Retry-After` before its route
/// runs, so a runaway client spends no database time. It runs after authentication, on `/api/` paths only: health,
/// metrics and the dashboard page are never limited.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    let limit: RateLimit
    let limiter: RateLimiter<ContinuousClock>
    private let refused: Counter

    init(limit: RateLimit, metrics: PrometheusCollectorRegistry) {
        self.limit = limit
        limiter = RateLimiter(clock: ContinuousClock())
        refused = metrics.makeCounter(
            descriptor: .herald(
                "herald_http_requests_rate_limited_total",
                help: "API requests answered 429 because their key or user was over its rate limit."))
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.uri.path.hasPrefix("/api/"), let identity = context.identity else {
            return try await next(request, context)
        }
        let decision =
            switch identity {
            case .apiKey(let key, _):
                limiter.take(
                    for: .apiKey(key.id), limit: key.rateLimit.map(RateLimit.init(keyRequestsPerSecond:)) ?? limit)
            case .user(let user): limiter.take(for: .user(user), limit: limit)
            }
        if case .refused(let retryAfter) = decision {
            refused.increment()
            throw APIError.rateLimited(retryAfter: retryAfter)
        }
        return try await next(request, context)
    }
}
