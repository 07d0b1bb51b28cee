import Hummingbird
import Prometheus

/// Delays a 401 to a client address past its ``RefusedCredentialThrottle`` allowance. It runs before load shedding,
/// so the connections it holds never take the places of admitted requests, and it sleeps after the refusal is made,
/// which costs what it did.
struct RefusedCredentialMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    let throttle: RefusedCredentialThrottle
    private let limiter = RateLimiter(clock: ContinuousClock())
    private let delayed: Counter

    init(throttle: RefusedCredentialThrottle, metrics: PrometheusCollectorRegistry) {
        self.throttle = throttle
        delayed = metrics.makeCounter(
            name: "herald_http_refusals_delayed_total",
            help: "401 answers held back because their client address was refused too often.")
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError where error.status == .unauthorized {
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
