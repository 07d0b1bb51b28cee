import HTTPTypes
import Hummingbird
import Prometheus

/// Delays a 401 or 429 to a client address past its ``RefusalThrottle`` allowance. It runs before load shedding, so
/// the connections it holds never take the places of admitted requests, and it sleeps after the refusal is made,
/// which costs what it did.
struct RefusalThrottleMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    /// Refusals a client can answer by trying again at once, and so may repeat in a loop.
    static let slowed: Set<HTTPResponse.Status> = [.unauthorized, .tooManyRequests]

    let throttle: RefusalThrottle
    private let limiter = RateLimiter(clock: ContinuousClock())
    private let delayed: Counter

    init(throttle: RefusalThrottle, metrics: PrometheusCollectorRegistry) {
        self.throttle = throttle
        delayed = metrics.makeCounter(
            descriptor: .herald(
                "herald_http_refusals_delayed_total",
                help: "401 and 429 answers held back because their client address was refused too often."))
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError where Self.slowed.contains(error.status) {
            if throttle.delay > .zero, let address = context.remoteAddress?.ipAddress,
                case .refused = limiter.take(for: .address(address), limit: throttle.allowance)
            {
                delayed.increment()
                try? await Task.sleep(for: throttle.delay)
            }
            throw error
        }
    }
}
