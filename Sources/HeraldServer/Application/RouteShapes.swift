import HTTPTypes
import Hummingbird
import Synchronization

/// The paths the router serves and the methods of each, so a request for a served path with another method is
/// answered 405 with `Allow`, not 404. Filled once the routes are registered; read by ``ErrorMiddleware``.
final class RouteShapes: Sendable {
    private struct Shape {
        /// Literal segments, nil where the route captures a parameter.
        let segments: [Substring?]
        let method: HTTPRequest.Method
    }

    private let shapes = Mutex<[Shape]>([])

    func fill(from routes: [Router<HeraldRequestContext>.RouteDescription]) {
        let made = routes.map { route in
            Shape(
                segments: route.path.description.split(separator: "/").map { $0.hasPrefix("{") ? nil : $0 },
                method: route.method)
        }
        shapes.withLock { $0 = made }
    }

    /// The methods served for `path`, sorted; empty when no route has this shape.
    func methods(forPath path: String) -> [String] {
        let segments = path.split(separator: "/")
        let methods = shapes.withLock { shapes in
            shapes.filter { shape in
                shape.segments.count == segments.count
                    && zip(shape.segments, segments).allSatisfy { literal, segment in
                        literal.map { $0 == segment } ?? true
                    }
            }.map(\.method.rawValue)
        }
        return Set(methods).sorted()
    }
}
