import Foundation
import H2Transport
import Testing

/// Real third-party HTTP/2 clients against our server: Debian's curl (libcurl + nghttp2) and nghttp.
@Suite("External HTTP/2 clients")
struct ExternalClientTests {
    @Test func curlWithCACertAndResolveGetsAnHTTP2Response() async throws {
        let handler = RecordingHandler { request, _, responder in
            responder.respond(H2Response(status: 200, headers: [H2Header("apns-id", request.headers["apns-id"] ?? "none")]))
        }
        try await withTestServer(handler: handler) { _, port in
            let result = try await runProcess("/usr/bin/curl", [
                "--silent", "--show-error", "--http2", "--cacert", TestCertificates.ca,
                "--resolve", "api.push.apple.com:\(port):127.0.0.1",
                "-H", "apns-id: 123E4567-e89b-12d3-a456-426614174000",
                "-d", "{}", "--write-out", "%{http_version} %{http_code}", "--dump-header", "-",
                "https://api.push.apple.com:\(port)/3/device/00",
            ])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("HTTP/2 200"))
            #expect(result.output.contains("apns-id: 123E4567-e89b-12d3-a456-426614174000"))
            #expect(result.output.hasSuffix("2 200"))
            let seen = try #require(handler.requests.first)
            #expect(seen.serverName == "api.push.apple.com")
            #expect(seen.authority == "api.push.apple.com:\(port)")
            #expect(seen.method == "POST")
            #expect(seen.path == "/3/device/00")
            #expect(seen.body == Array("{}".utf8))
        }
    }

    @Test func curlWithClientCertificateIsVerifiedByTheServer() async throws {
        let handler = RecordingHandler()
        try await withTestServer(handler: handler) { _, port in
            let result = try await runProcess("/usr/bin/curl", [
                "--silent", "--show-error", "--http2", "--cacert", TestCertificates.ca,
                "--cert", TestCertificates.clientCert, "--key", TestCertificates.clientKey,
                "--resolve", "api.sandbox.push.apple.com:\(port):127.0.0.1", "-d", "{}",
                "--write-out", "%{http_code}", "https://api.sandbox.push.apple.com:\(port)/3/device/00",
            ])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output == "200")
            #expect(handler.requests.first?.peerCertificateVerified == true)
            #expect(handler.requests.first?.serverName == "api.sandbox.push.apple.com")
        }
    }

    @Test func nghttpClientGetsResponsesOnOneConnection() async throws {
        let handler = RecordingHandler { _, _, responder in
            responder.respond(H2Response(status: 200, body: Array("ok".utf8)))
        }
        try await withTestServer(handler: handler) { _, port in
            let body = FileManager.default.temporaryDirectory.appendingPathComponent("nghttp-body-\(port).json")
            try Data(#"{"aps":{"alert":"hi"}}"#.utf8).write(to: body)
            defer { try? FileManager.default.removeItem(at: body) }
            let urls = (1...3).map { "https://127.0.0.1:\(port)/3/device/" + String(repeating: "0\($0)", count: 32) }
            let result = try await runProcess("/usr/bin/nghttp", ["--no-verify-peer", "-s", "-d", body.path] + urls)
            #expect(result.status == 0, "\(result.output)")
            #expect(handler.requests.count == 3)
            #expect(handler.requests.allSatisfy { $0.bodyLength == 22 && $0.alpn == "h2" })
        }
    }

    /// RFC 9218's SETTINGS_NO_RFC7540_PRIORITIES is advertised only when asked for, as nghttpd does by default,
    /// as nghttp's frame log shows.
    @Test(arguments: [false, true])
    func noRFC7540PrioritiesIsAdvertisedOnlyWhenAskedFor(_ advertised: Bool) async throws {
        let handler = RecordingHandler { _, _, responder in responder.respond(H2Response(status: 200)) }
        try await withTestServer(handler: handler, configure: { $0.settings.noRFC7540Priorities = advertised }) { _, port in
            let result = try await runProcess("/usr/bin/nghttp", ["--no-verify-peer", "-v",
                                                                  "https://127.0.0.1:\(port)/"])
            #expect(result.status == 0, "\(result.output)")
            let settings = result.output.split(separator: "\n").drop { !$0.contains("recv SETTINGS frame") }
                .prefix { !$0.contains("send SETTINGS frame") }.joined(separator: "\n")
            #expect(settings.contains("SETTINGS_MAX_CONCURRENT_STREAMS"), "\(result.output)")
            #expect(settings.contains("[SETTINGS_NO_RFC7540_PRIORITIES(0x09):1]") == advertised, "\(settings)")
        }
    }
}
