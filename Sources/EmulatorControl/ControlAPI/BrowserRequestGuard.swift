import H2Transport

/// Keeps web pages the user happens to visit away from the control API, which a browser on the same machine can
/// reach: a page's cross-site request (`Sec-Fetch-Site: cross-site`, or an `Origin` other than the host it asks)
/// is refused, and so is a request for a host name that is not loopback when no control token guards the port (a
/// DNS-rebinding page asks for its own name). curl, Python and other clients send none of these headers.
enum BrowserRequestGuard {
    static func check(_ request: HTTP1Request, tokenRequired: Bool) throws(ControlAPIError) {
        let host = request.header("host") ?? ""
        if request.header("sec-fetch-site")?.lowercased() == "cross-site" {
            throw .forbidden("a cross-site request from a web page: the control API answers its own dashboard and clients")
        }
        // `Origin: null` is a sandboxed frame's or a local file's request: never the dashboard's own page.
        if request.header("origin") == "null" {
            throw .forbidden("a request from an opaque origin (a sandboxed frame or a file): only the dashboard's own page may call")
        }
        if let origin = request.header("origin") {
            let originHost = origin.split(separator: "/", omittingEmptySubsequences: true).dropFirst().first.map(String.init) ?? ""
            guard originHost.lowercased() == host.lowercased() else {
                throw .forbidden("a request from the page at \(origin) to \(host): only the dashboard's own page may call")
            }
        }
        if !tokenRequired, !host.isEmpty, !isLoopback(host) {
            throw .forbidden("host \(host) is not loopback: without a control token the control API answers loopback names only")
        }
    }

    /// `localhost`, an IPv4 literal in 127.0.0.0/8 or `[::1]`, with any port (`127.evil.example` is a name, not
    /// loopback).
    static func isLoopback(_ hostHeader: String) -> Bool {
        var name = hostHeader.lowercased()
        if name.hasPrefix("[") {
            name = String(name.dropFirst().prefix { $0 != "]" })
        } else if let colon = name.lastIndex(of: ":") {
            name = String(name[..<colon])
        }
        if name == "localhost" || name == "::1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII)
                                                      && UInt8($0) != nil }) else { return false }
        return octets[0] == "127"
    }
}
