import HeraldCore
public import Hummingbird
import Logging

/// Per-request state: Hummingbird's core storage plus who is calling.
public struct HeraldRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by ``AuthMiddleware`` from the `Authorization` header.
    var identity: Identity?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }
}
