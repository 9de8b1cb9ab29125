import APNsEmulator
import Foundation
import H2Transport
import OpenSSLSupport
import Testing

@testable import EmulatorControl

@testable import EmulatorCLI

/// `send` end to end against a recording HTTP/2 server: what went over the wire, what was printed, the exit code.
struct SendCommandRunTests {
    /// Starts a stub answering `response`, runs `send` against it with the folder's CA and sample key, and stops it.
    private func sendToStub(
        response: H2Response,
        _ arguments: [String],
        check: (CLIResult, [StubAPNsServer.Received], URL) throws -> Void
    ) async throws {
        try await withCertificates { certificates in
            let stub = try StubAPNsServer(certificates: certificates, response: response)
            defer { stub.shutdown() }
            let result = await runCLI(
                [
                    "send", "--url", stub.url, "--ca", certificates.file(DevCertificates.FileName.caCertificate),
                    "--device-token", "0123abcd",
                ] + arguments.map { $0.replacingOccurrences(of: "CERTS", with: certificates.path) }
            )
            try check(result, stub.received, certificates)
        }
    }

    private let keyFlags = ["--key-file", "CERTS/\(DevCertificates.FileName.authKey)"]

    @Test func acceptedPushPrintsStatusAndIdsAndExits0() async throws {
        let response = H2Response(
            status: 200,
            headers: [H2Header("apns-id", "8E9F3A2B-0000-4000-8000-000000000001"), H2Header("apns-unique-id", "u-1")]
        )
        try await sendToStub(response: response, keyFlags + ["--topic", "com.example.app"]) {
            result,
            received,
            certificates in
            #expect(result.code == .success)
            #expect(result.errorOutput.isEmpty)
            #expect(
                result.output
                    == "status: 200\napns-id: 8E9F3A2B-0000-4000-8000-000000000001\napns-unique-id: u-1\n"
            )
            let request = try #require(received.first)
            #expect(received.count == 1)
            #expect(request.serverName == "api.push.apple.com")
            #expect(request.values(":method") == ["POST"])
            #expect(request.values(":path") == ["/3/device/0123abcd"])
            #expect(request.values(":authority").first?.hasPrefix("api.push.apple.com:") == true)
            #expect(request.values("apns-topic") == ["com.example.app"])
            #expect(String(decoding: request.body, as: UTF8.self) == SendCommand.defaultPayload)
            #expect(!request.clientCertificateVerified)

            // The minted token is signed by the sample key, with the sample ids.
            let authorization = try #require(request.values("authorization").first)
            #expect(authorization.hasPrefix("bearer "))
            let token = try DecodedToken(String(authorization.dropFirst("bearer ".count)))
            #expect(token.header == #"{"alg":"ES256","kid":"DEVKEY1234"}"#)
            #expect(token.claims.hasPrefix(#"{"iss":"DEVTEAM123","iat":"#))
            let pem = try String(contentsOfFile: certificates.file(DevCertificates.FileName.authKey), encoding: .utf8)
            let publicKey = try PrivateKey(pem: pem).publicKey
            #expect(publicKey.verifyES256(signature: token.signature, data: token.signingInput))
        }
    }

    @Test func duplicateHeadersReachTheServerTwice() async throws {
        try await sendToStub(
            response: H2Response(status: 200),
            keyFlags + ["--topic", "a", "-H", "apns-topic: b", "-H", "apns-priority: 10", "-H", "apns-priority: 5"]
        ) { result, received, _ in
            #expect(result.code == .success)
            let request = try #require(received.first)
            #expect(request.values("apns-topic") == ["a", "b"])
            #expect(request.values("apns-priority") == ["10", "5"])
        }
    }

    @Test func rejectionPrintsReasonAndTimestampAndExits1() async throws {
        let response = H2Response(
            status: 410,
            headers: [H2Header("content-type", "application/json"), H2Header("apns-id", "id-410")],
            body: Array(#"{"reason":"Unregistered","timestamp":1700000000000}"#.utf8)
        )
        try await sendToStub(response: response, keyFlags) { result, _, _ in
            #expect(result.code == .failure)
            #expect(result.output == "status: 410\nreason: Unregistered\napns-id: id-410\ntimestamp: 1700000000000\n")
            #expect(result.errorOutput.isEmpty, "a rejection is an answer, not an error")
        }
    }

    @Test func jsonFlagPrintsOneObject() async throws {
        let response = H2Response(
            status: 400,
            headers: [H2Header("apns-id", "id-400")],
            body: Array(#"{"reason":"BadDeviceToken"}"#.utf8)
        )
        try await sendToStub(response: response, keyFlags + ["--json"]) { result, _, _ in
            #expect(result.code == .failure)
            #expect(result.output == #"{"status":400,"reason":"BadDeviceToken","apns-id":"id-400"}"# + "\n")
        }
    }

    @Test func sandboxPresentsTheSandboxNameOnTheGivenURL() async throws {
        try await sendToStub(response: H2Response(status: 200), keyFlags + ["--sandbox"]) { result, received, _ in
            #expect(result.code == .success)
            let request = try #require(received.first)
            #expect(request.serverName == "api.sandbox.push.apple.com")
            #expect(request.values(":authority").first?.hasPrefix("api.sandbox.push.apple.com:") == true)
        }
    }

    @Test func certificateAuthenticationPresentsTheCertificateAndNoToken() async throws {
        try await sendToStub(
            response: H2Response(status: 200),
            [
                "--cert", "CERTS/\(DevCertificates.FileName.productionClientCertificate)",
                "--key", "CERTS/\(DevCertificates.FileName.productionClientKey)",
            ]
        ) { result, received, _ in
            #expect(result.code == .success, "\(result.errorOutput)")
            let request = try #require(received.first)
            #expect(request.clientCertificateVerified)
            #expect(request.values("authorization").isEmpty)
        }
    }

    @Test func jwtAndNoAuthControlTheAuthorizationHeader() async throws {
        try await sendToStub(response: H2Response(status: 200), ["--jwt", "a.b.c"]) { _, received, _ in
            let request = try #require(received.first)
            #expect(request.values("authorization") == ["bearer a.b.c"])
        }
        try await sendToStub(response: H2Response(status: 200), ["--no-auth"]) { _, received, _ in
            let request = try #require(received.first)
            #expect(request.values("authorization").isEmpty)
        }
    }

    @Test func payloadFromAFileIsSentAsIs() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("push.json")
            try Data(#"{"aps":{"content-available":1}}"#.utf8).write(to: file)
            try await sendToStub(response: H2Response(status: 200), keyFlags + ["--payload", "@\(file.path)"]) {
                _, received, _ in
                let request = try #require(received.first)
                #expect(String(decoding: request.body, as: UTF8.self) == #"{"aps":{"content-available":1}}"#)
            }
        }
    }

    @Test func missingPayloadFileExits1BeforeConnecting() async throws {
        try await sendToStub(response: H2Response(status: 200), keyFlags + ["--payload", "@/nonexistent/push.json"]) {
            result,
            received,
            _ in
            #expect(result.code == .failure)
            #expect(result.errorOutput == "error: cannot read the payload file '/nonexistent/push.json': no such file\n")
            #expect(received.isEmpty)
        }
    }

    @Test func untrustedServerExits1WithTheConnectionError() async throws {
        try await withCertificates { otherSet in
            try await sendToStub(
                response: H2Response(status: 200),
                keyFlags + ["--ca", otherSet.file(DevCertificates.FileName.caCertificate)]
            ) { result, received, _ in
                #expect(result.code == .failure)
                #expect(result.output.isEmpty)
                #expect(result.errorOutput.hasPrefix("error: could not connect to https://127.0.0.1:"))
                #expect(received.isEmpty)
            }
        }
    }

    @Test func refusedConnectionExits1() async throws {
        try await withCertificates { certificates in
            // Bind and release a port so nothing listens on it.
            let stub = try StubAPNsServer(certificates: certificates, response: H2Response(status: 200))
            let port = stub.port
            stub.shutdown()
            let result = await runCLI([
                "send", "--url", "https://127.0.0.1:\(port)", "--device-token", "00",
                "--ca", certificates.file(DevCertificates.FileName.caCertificate),
                "--key-file", certificates.file(DevCertificates.FileName.authKey),
            ])
            #expect(result.code == .failure)
            let expected = "error: could not connect to https://127.0.0.1:\(port) as api.push.apple.com"
            #expect(result.errorOutput.hasPrefix(expected), "\(result.errorOutput)")
        }
    }

    @Test func missingCAExits1WithAHint() async throws {
        try await withTemporaryDirectory { directory in
            let ca = directory.appendingPathComponent("ca.pem").path
            let result = await runCLI(["send", "--device-token", "00", "--ca", ca, "--jwt", "x"])
            #expect(result.code == .failure)
            #expect(result.errorOutput == "error: cannot read the CA file '\(ca)'\n")
        }
    }

    @Test func missingDeviceTokenExits64() async {
        let result = await runCLI(["send", "--topic", "com.example.app"])
        #expect(result.code == .usage)
        #expect(result.errorOutput.hasPrefix("error: missing required option '--device-token <hex>'\n"))
    }
}

/// `send` against the emulator itself, started in-process on free ports as `serve` would start it.
struct SendCommandEmulatorTests {
    private func withEmulator<T>(
        _ body: (EmulatorEndpoints, URL) async throws -> T
    ) async throws -> T {
        try await withCertificates { certificates in
            var configuration = EmulatorConfiguration()
            configuration.productionPort = 0
            configuration.sandboxPort = 0
            configuration.controlPort = 0
            configuration.certificatesDirectory = certificates.path
            configuration.ephemeral = true
            configuration.shutdownGraceSeconds = 0.1
            let emulator = try Emulator(configuration: configuration)
            let endpoints = try emulator.start()
            defer { emulator.shutdown() }
            return try await body(endpoints, certificates)
        }
    }

    private func send(_ endpoint: String, _ certificates: URL, _ arguments: [String]) async -> CLIResult {
        await runCLI(
            [
                "send", "--url", endpoint, "--ca", certificates.file(DevCertificates.FileName.caCertificate),
                "--key-file", certificates.file(DevCertificates.FileName.authKey), "--topic",
                DevCertificates.sampleBundleId,
            ] + arguments
        )
    }

    @Test func printsTheStatusAndTheEchoedApnsIdWithAMatchingExitCode() async throws {
        try await withEmulator { endpoints, certificates in
            let apnsId = "5B0E7E0C-4C4D-4F0B-9B1A-2F1C3D4E5F60"
            let result = await send(
                endpoints.production,
                certificates,
                ["--device-token", String(repeating: "ab", count: 32), "--apns-id", apnsId]
            )
            let lines = result.output.split(separator: "\n").map(String.init)
            let status = try #require(lines.first.flatMap { Int($0.dropFirst("status: ".count)) }, "\(result)")
            #expect(lines.first == "status: \(status)")
            #expect(lines.contains("apns-id: \(apnsId)"), "the emulator echoes apns-id exactly as sent")
            #expect(result.code == (status == 200 ? .success : .failure))
        }
    }

    @Test func jsonOutputFromTheEmulatorParses() async throws {
        try await withEmulator { endpoints, certificates in
            let result = await send(
                endpoints.sandbox,
                certificates,
                ["--sandbox", "--device-token", String(repeating: "cd", count: 32), "--apns-id", "id-1", "--json"]
            )
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any],
                "\(result)"
            )
            #expect(object["status"] is NSNumber)
        }
    }

    @Test func unknownDeviceTokenIsRejectedAsBadDeviceTokenAndExits1() async throws {
        // A well-formed token nobody registered passes every check before the registry (the sample key signs for
        // the sample bundle), so the answer is the registry's: 400 BadDeviceToken, as real APNs gives it.
        try await withEmulator { endpoints, certificates in
            let apnsId = "0F6D1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B"
            let result = await send(
                endpoints.production,
                certificates,
                ["--device-token", String(repeating: "0f", count: 32), "--apns-id", apnsId]
            )
            #expect(result.code == .failure)
            #expect(result.output == "status: 400\nreason: BadDeviceToken\napns-id: \(apnsId)\n", "\(result)")
            #expect(result.errorOutput.isEmpty, "a rejection is an answer, not an error")
        }
    }
}
