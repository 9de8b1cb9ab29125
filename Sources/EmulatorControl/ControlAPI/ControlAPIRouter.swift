import APNsEmulator

/// Matches a method and a path against route patterns such as `/_emulator/tokens/{token}/expire`.
///
/// ### Overview
/// A pattern is a list of segments; `{name}` segments capture one non-empty path segment. Matching
/// answers one of three things: the route with its captured parameters, "that path exists but not with
/// this method" (with the methods that do, for the `allow` header of a 405), or "no such path".
/// Literal segments win over parameters, so `/journal/count` is never read as `/journal/{id}`.
///
/// ### Implementation
/// The table is small (tens of routes) and requests are rare next to APNs traffic, so a linear scan is
/// the clearest correct choice; no trie. One trailing slash is tolerated (`/_emulator/keys/`), empty
/// segments elsewhere are not (`/tokens//expire` must not capture `expire` as a token).
struct ControlAPIRouter<Operation: Sendable>: Sendable {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    struct Route: Sendable {
        var method: String
        /// The pattern as written (also its OpenAPI path).
        var pattern: String
        var segments: [Segment]
        var operation: Operation
    }

    enum Match {
        case found(Operation, parameters: [String: String])
        case methodNotAllowed(allow: [String])
        case notFound
    }

    let routes: [Route]

    /// - Parameter routes: (method, pattern, operation) triples; patterns start with `/`.
    init(_ routes: [(method: String, pattern: String, operation: Operation)]) {
        self.routes = routes.map { route in
            let segments = Self.split(route.pattern)?.map { part -> Segment in
                if part.hasPrefix("{"), part.hasSuffix("}") { return .parameter(String(part.dropFirst().dropLast())) }
                return .literal(String(part))
            }
            precondition(segments != nil, "route pattern \(route.pattern) must start with /")
            return Route(method: route.method, pattern: route.pattern, segments: segments!, operation: route.operation)
        }
    }

    /// Finds the route for `method` on `path`. HEAD is answered by the GET route (libmicrohttpd drops the body).
    func match(method: String, path: String) -> Match {
        guard let parts = Self.split(path) else { return .notFound }
        var best: (route: Route, parameters: [String: String], literals: Int)?
        var allow: [String] = []
        var bestForPath = -1
        for route in routes {
            guard let (parameters, literals) = Self.capture(route.segments, parts) else { continue }
            // Only the most specific pattern matching the path decides what exists there.
            if literals > bestForPath {
                bestForPath = literals
                allow = []
                best = nil
            } else if literals < bestForPath {
                continue
            }
            allow.append(route.method)
            let wanted = method == "HEAD" ? "GET" : method
            if route.method == wanted, best == nil { best = (route, parameters, literals) }
        }
        if let best { return .found(best.route.operation, parameters: best.parameters) }
        if allow.isEmpty { return .notFound }
        if allow.contains("GET") { allow.append("HEAD") }
        return .methodNotAllowed(allow: allow)
    }

    /// Parameters captured and the number of literal segments, or nil if the path does not fit.
    private static func capture(_ segments: [Segment], _ parts: [Substring]) -> ([String: String], Int)? {
        guard segments.count == parts.count else { return nil }
        var parameters: [String: String] = [:]
        var literals = 0
        for (segment, part) in zip(segments, parts) {
            switch segment {
            case .literal(let text):
                guard part == text else { return nil }
                literals += 1
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                parameters[name] = String(part)
            }
        }
        return (parameters, literals)
    }

    /// Path segments without the leading slash and one optional trailing slash; nil for a relative path.
    private static func split(_ path: String) -> [Substring]? {
        guard path.hasPrefix("/") else { return nil }
        var parts = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        if parts.count > 1, parts.last == "" { parts.removeLast() }
        return parts
    }
}
