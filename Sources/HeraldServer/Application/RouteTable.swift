public import HTTPTypes
import Hummingbird

/// Registers routes on a router and remembers them, so the OpenAPI document can be checked against what is served.
public final class RouteTable: @unchecked Sendable {
    /// A served route, with its path in OpenAPI form (`/api/v1/users/{userId}`).
    public struct Route: Hashable, Sendable {
        public var method: HTTPRequest.Method
        public var path: String
    }

    let router: Router<HeraldRequestContext>
    /// Every registered route, in registration order. Only written while the application is being built.
    public private(set) var routes: [Route] = []

    init(router: Router<HeraldRequestContext>) { self.router = router }

    /// Adds a handler for `method` on `path`, written with `{name}` for parameters.
    func on(
        _ method: HTTPRequest.Method, _ path: String,
        use handler: @escaping @Sendable (Request, HeraldRequestContext) async throws -> Response
    ) {
        routes.append(Route(method: method, path: path))
        let hummingbirdPath = path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") ? ":" + segment.dropFirst().dropLast() : segment
        }.joined(separator: "/")
        router.on(RouterPath(hummingbirdPath), method: method, use: handler)
    }
}
