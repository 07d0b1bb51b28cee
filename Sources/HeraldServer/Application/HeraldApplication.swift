public import HeraldCore
public import Hummingbird
public import Logging
import ServiceLifecycle

/// Builds Herald's HTTP application: one function for `herald serve`, the tests and the benchmarks.
public enum HeraldApplication {
    /// The router with every route and middleware; `routes` lists what it serves.
    public static func router(settings: ServerSettings, services: HeraldServices) -> Router<HeraldRequestContext> {
        let router = Router(context: HeraldRequestContext.self)
        let shapes = RouteShapes()
        // First, so every request has a span (joined to the caller's `traceparent`) and what follows runs in it: the
        // notification a request accepts carries the trace on to its pushes. With tracing off it costs next to nothing.
        router.add(middleware: TracingMiddleware())
        router.add(middleware: NoStoreMiddleware())
        router.add(
            middleware: RefusalThrottleMiddleware(throttle: settings.refusals, metrics: settings.metrics))
        router.add(
            middleware: LoadSheddingMiddleware(
                limit: settings.maxConcurrentRequests, databaseWaitBudget: settings.databaseWaitBudget,
                metrics: settings.metrics))
        router.add(middleware: RequestLogMiddleware())
        router.add(middleware: ErrorMiddleware(routes: shapes))
        router.add(middleware: AuthMiddleware(keys: services.keys, userTokens: settings.userTokens))
        router.add(middleware: RateLimitMiddleware(limit: settings.rateLimit, metrics: settings.metrics))
        router.add(middleware: InputHygieneMiddleware(routes: shapes))
        HealthRoutes(services: services, openAPIDocument: settings.openAPIDocument).register(on: router)
        DirectoryRoutes(services: services, maxBodySize: settings.maxBodySize).register(on: router)
        AppRoutes(services: services, maxBodySize: settings.maxBodySize, masterKey: settings.masterKey).register(
            on: router)
        DeviceRoutes(
            services: services, maxBodySize: settings.maxBodySize, defaultEnvironment: settings.defaultEnvironment
        ).register(on: router)
        PreferenceRoutes(services: services, maxBodySize: settings.maxBodySize).register(on: router)
        NotificationRoutes(services: services, maxBodySize: settings.maxBodySize).register(on: router)
        LiveActivityRoutes(services: services, maxBodySize: settings.maxBodySize).register(on: router)
        ServiceTokenRoutes(services: services, maxBodySize: settings.maxBodySize).register(on: router)
        ChannelRoutes(services: services, maxBodySize: settings.maxBodySize).register(on: router)
        DeviceTestRoutes(services: services).register(on: router)
        ScheduleRoutes(services: services, maxBodySize: settings.maxBodySize).register(on: router)
        FeedbackRoutes(services: services).register(on: router)
        let logs = services.logs
        LogRoutes(logs: logs).register(on: router)
        NotificationDeliveryRoutes(logs: logs).register(on: router)
        InteractionRoutes(interactions: services.interactions, maxBodySize: settings.maxBodySize).register(on: router)
        OutboxRoutes(outbox: services.outbox).register(on: router)
        StatsRoutes(logs: logs, longestSharing: settings.longestStatsSharing).register(on: router)
        MetricsRoutes(registry: settings.metrics, deliversHere: settings.deliversHere, key: settings.metricsKey)
            .register(on: router)
        DashboardRoutes().register(on: router)
        shapes.fill(from: router.routes)
        return router
    }

    /// The application, with the expansion loop as a service stopped with it.
    /// - Parameter onServerRunning: Called with the bound port once the server listens.
    public static func make(
        settings: ServerSettings, services: HeraldServices, logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = router(settings: settings, services: services)
        var extra: [any Service] = []
        if let expansion = services.expansion { extra.append(expansion) }
        return Application(
            router: router,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "Herald"),
            services: extra,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? settings.port) },
            logger: logger)
    }
}
