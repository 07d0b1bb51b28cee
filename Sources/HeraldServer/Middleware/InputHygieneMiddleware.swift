import Foundation
import Hummingbird

/// Refuses, before any route reads them, a path or query no field can hold: percent-encoding that is not UTF-8
/// (400), and NUL or other control characters (422), each naming the query parameter, or `path`.
///
/// PostgreSQL refuses NUL in text, and no identifier or filter Herald reads holds a control character, so this is
/// the one place that keeps them out instead of every parameter's parser. A method the path is not served with is
/// left to the router's 405, whatever the path holds, as on any other path.
struct InputHygieneMiddleware: RouterMiddleware {
    typealias Context = HeraldRequestContext

    let routes: RouteShapes

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            try Self.check(path: request.uri.path)
            if let query = request.uri.query { try Self.check(query: query) }
        } catch {
            let served = routes.methods(forPath: request.uri.path)
            guard !served.isEmpty, !served.contains(request.method.rawValue) else { throw error }
        }
        return try await next(request, context)
    }

    static func check(path: String) throws(APIError) {
        try check(path, field: "path")
    }

    static func check(query: String) throws(APIError) {
        for item in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let rawName = String(parts[0])
            let name = decoded(rawName) ?? "query"
            try check(rawName, field: name)
            if parts.count == 2 { try check(String(parts[1]), field: name) }
        }
    }

    /// Percent-decodes `text` (`+` is a space in a query) and checks what it says.
    private static func check(_ text: String, field: String) throws(APIError) {
        // Printable ASCII without `%` or `+` decodes to itself and holds no control character: most paths and
        // queries, passed without the decoding (through NSString on Linux, a noticeable share of a request).
        if text.utf8.allSatisfy({ (0x20..<0x7F).contains($0) && $0 != UInt8(ascii: "%") && $0 != UInt8(ascii: "+") }) {
            return
        }
        guard let value = decoded(text) else {
            throw APIError(.badRequest, .validationFailed, "is not percent-encoded UTF-8", field: field)
        }
        if value.unicodeScalars.contains(where: isControl) {
            throw .validation("must not contain NUL or other control characters", field: field)
        }
    }

    private static func decoded(_ text: String) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }
}
