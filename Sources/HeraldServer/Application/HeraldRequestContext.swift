public import Foundation
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

    /// Response bodies are JSON with ISO 8601 dates and unescaped slashes (URLs stay readable).
    public var responseEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }
}
