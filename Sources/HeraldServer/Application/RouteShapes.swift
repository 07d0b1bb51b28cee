import HTTPTypes
import Hummingbird
import Synchronization

/// The paths the router serves and the methods of each, so a request for a served path with another method is
/// answered 405 with `Allow`, not 404. Filled once the routes are registered; read by ``ErrorMiddleware``.
final class RouteShapes: Sendable {
    fileprivate struct Shape {
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
    ///
    /// Like the router, a literal segment wins over a parameter: `/devices/register` is served with POST only, even
    /// though `/devices/{deviceId}` has the same shape, because the router never reaches the parameter for it.
    func methods(forPath path: String) -> [String] {
        let segments = path.split(separator: "/")
        let matching = shapes.withLock { shapes in
            shapes.filter { shape in
                shape.segments.count == segments.count
                    && zip(shape.segments, segments).allSatisfy { literal, segment in
                        literal.map { $0 == segment } ?? true
                    }
            }
        }
        guard let preferred = matching.map(\.literalMask).max(by: { $0.lexicographicallyPrecedes($1) }) else {
            return []
        }
        return Set(matching.filter { $0.literalMask == preferred }.map(\.method.rawValue)).sorted()
    }
}

extension RouteShapes.Shape {
    /// 1 where the route has a literal segment, 0 where a parameter: the greatest mask is the router's choice.
    fileprivate var literalMask: [Int] { segments.map { $0 == nil ? 0 : 1 } }
}
