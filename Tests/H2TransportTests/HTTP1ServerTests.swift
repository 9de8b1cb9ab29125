import Foundation
import H2Transport
import Testing

struct EchoHTTP1: HTTP1Handler {
    func handle(_ request: HTTP1Request) -> HTTP1Response {
        let q = request.query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        let text = "\(request.method) \(request.path) ?\(q) body=\(request.body.count) exceeded=\(request.bodyExceededLimit) auth=\(request.header("Authorization") ?? "-")"
        return HTTP1Response(status: request.path == "/missing" ? 404 : 200,
                             headers: [H2Header("content-type", "text/plain")], body: Array(text.utf8))
    }
}

@Suite("HTTP/1.1 control server on libmicrohttpd")
struct HTTP1ServerTests {
    @Test func curlWithNoFlagsGetsTheHandlersAnswer() async throws {
        let server = HTTP1Server(handler: EchoHTTP1(), maxBodyBytes: 1024)
        let address = try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        #expect(address.port > 0)
        let get = try await runProcess("/usr/bin/curl", ["-s", "http://127.0.0.1:\(address.port)/_emulator/journal?token=ab%20cd&limit=5"])
        #expect(get.output == "GET /_emulator/journal ?token=ab cd&limit=5 body=0 exceeded=false auth=-")
        let post = try await runProcess("/usr/bin/curl", ["-s", "-H", "Authorization: Bearer t", "-d", "{\"a\":1}",
                                                    "http://127.0.0.1:\(address.port)/_emulator/keys"])
        #expect(post.output == "POST /_emulator/keys ? body=7 exceeded=false auth=Bearer t")
        let missing = try await runProcess("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(address.port)/missing"])
        #expect(missing.output == "404")
    }

    @Test func bodyOverTheLimitIsFlagged() async throws {
        let server = HTTP1Server(handler: EchoHTTP1(), maxBodyBytes: 1024)
        let address = try server.start(host: "127.0.0.1", port: 0)
        defer { server.stop() }
        let big = String(repeating: "x", count: 5000)
        let post = try await runProcess("/usr/bin/curl", ["-s", "-d", big, "http://127.0.0.1:\(address.port)/_emulator/keys"])
        #expect(post.output.hasSuffix("body=0 exceeded=true auth=-"))
    }
}
