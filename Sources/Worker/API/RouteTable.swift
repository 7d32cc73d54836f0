public import Hummingbird
import Synchronization

/// The API's routes and their methods, as they were registered: a request for a path that exists with
/// other methods is answered `405 Method Not Allowed` with `Allow`, not 404.
public final class RouteTable: Sendable {
    private let routes = Mutex<[(segments: [Substring], methods: Set<HTTPRequest.Method>)]>([])

    public init() {}

    /// Records a route (`/v1/devices/{device}/push-to-start/{type}`); a `GET` brings its `HEAD`.
    func add(_ path: String, _ method: HTTPRequest.Method) {
        let segments = path.split(separator: "/")
        let methods: Set<HTTPRequest.Method> = method == .get ? [.get, .head] : [method]
        routes.withLock { routes in
            if let i = routes.firstIndex(where: { $0.segments == segments }) {
                routes[i].methods.formUnion(methods)
            } else {
                routes.append((segments, methods))
            }
        }
    }

    /// The methods `path` has, sorted; empty when no route matches it.
    public func methods(for path: String) -> [HTTPRequest.Method] {
        let parts = path.split(separator: "/")
        let found = routes.withLock { routes in
            routes.filter { route in
                route.segments.count == parts.count
                    && zip(route.segments, parts).allSatisfy { pattern, part in
                        (pattern.hasPrefix("{") && pattern.hasSuffix("}")) || (pattern.hasPrefix(":"))
                            || pattern == part
                    }
            }.reduce(into: Set<HTTPRequest.Method>()) { $0.formUnion($1.methods) }
        }
        return found.sorted { $0.rawValue < $1.rawValue }
    }
}

/// A router that records every route it is given in a ``RouteTable``, then hands it to the real router.
struct RecordingRouter<Context: RequestContext>: RouterMethods {
    let base: Router<Context>
    let table: RouteTable

    @discardableResult func on<Responder: HTTPResponder>(
        _ path: RouterPath, method: HTTPRequest.Method, responder: Responder
    ) -> Self where Responder.Context == Context {
        table.add(path.description, method)
        base.on(path, method: method, responder: responder)
        return self
    }

    @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
        base.add(middleware: middleware)
        return self
    }
}
