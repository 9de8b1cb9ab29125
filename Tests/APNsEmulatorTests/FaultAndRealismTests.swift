@testable import APNsEmulator
import APNsProtocol
import EmulatorTesting
import Foundation
import H2Transport
import Testing
import StateStore

@Suite("Faults and the strict realism profile")
struct FaultAndRealismTests {
    func rule(_ id: String, token: String? = nil, _ action: FaultAction, count: Int? = nil, now: Millis) -> FaultRule {
        FaultRule(id: id, token: token, action: action, remaining: count, createdAt: now)
    }

    @Test func reasonFaultsAnswerThatReasonForTheirTokenOnly() async throws {
        try await withEmulator { emu in
            let hit = try emu.issueToken()
            let spared = try emu.issueToken()
            let now = emu.clock.now()
            try emu.services.faults.add(rule("f1", token: hit, .reason("InternalServerError"), count: 1, now: now))
            try emu.services.faults.add(rule("f2", token: spared, .reason("Forbidden"), count: 1, now: now))
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            expectRejection(try await c.send(emu.push(to: hit, jwt: jwt)), .internalServerError)
            #expect(try await c.send(emu.push(to: hit, jwt: jwt)).status == 200)  // count exhausted
            expectRejection(try await c.send(emu.push(to: spared, jwt: jwt)), .forbidden)
            try emu.services.faults.add(rule("f3", .reason("ServiceUnavailable"), now: now))
            expectRejection(try await c.send(emu.push(to: spared, jwt: jwt)), .serviceUnavailable)
            try emu.services.faults.add(rule("f4", token: spared, .reason("Unregistered"), count: 1, now: now))
            try emu.services.faults.remove(id: "f3")
            expectRejection(try await c.send(emu.push(to: spared, jwt: jwt)), .unregistered, timestamp: now)
        }
    }

    @Test func shutdownFaultAnswers503AndSendsGoAway() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken()
            try emu.services.faults.add(rule("s", .shutdown, now: emu.clock.now()))
            let c = try await emu.connect()
            expectRejection(try await c.send(emu.push(to: token, jwt: try emu.sampleJWT())), .shutdown)
            let goAway = await eventuallyGoAway(c)
            #expect(goAway == #"{"reason":"Shutdown"}"#)
        }
    }

    @Test func delayResetAndGoAwayFaults() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken()
            let now = emu.clock.now()
            let jwt = try emu.sampleJWT()
            try emu.services.faults.add(rule("d", token: token, .delay(300), count: 1, now: now))
            let c = try await emu.connect()
            let start = Date()
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            #expect(Date().timeIntervalSince(start) >= 0.28)

            try emu.services.faults.add(rule("r", token: token, .resetStream, count: 1, now: now))
            await #expect(throws: H2ClientError.streamReset(H2ErrorCode.internalError.rawValue)) {
                _ = try await c.send(emu.push(to: token, jwt: jwt))
            }
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)

            try emu.services.faults.add(rule("g", token: token, .goAway(reason: "Shutdown"), count: 1, now: now))
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            #expect(await eventuallyGoAway(c) == #"{"reason":"Shutdown"}"#)
        }
    }

    @Test func strictProfileAllowsOneStreamUntilAuthenticatedAndThrottlesAfterRejections() async throws {
        try await withEmulator(configure: { $0.connectionBehavior = .strict; $0.maxConcurrentStreams = 500 }) { emu in
            let token = try emu.issueToken()
            let c = try await emu.connect()
            // One token for the whole connection: ES256 signatures are randomised, so every mint is a new token.
            let jwt = try emu.sampleJWT()
            // Before any valid token: one stream.
            _ = try await c.send(emu.push(to: token, jwt: nil))
            #expect(await c.remoteMaxConcurrentStreams() == 1)
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            _ = try await c.send(emu.push(to: token, jwt: jwt))
            #expect(await c.remoteMaxConcurrentStreams() == 500)
            // A rejection throttles to 1; the next success restores.
            expectRejection(try await c.send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-priority", "2")])), .badPriority)
            _ = try await c.send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-priority", "2")]))
            #expect(await c.remoteMaxConcurrentStreams() == 1)
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            _ = try await c.send(emu.push(to: token, jwt: jwt))
            #expect(await c.remoteMaxConcurrentStreams() == 500)
        }
    }

    @Test func strictProfileClosesAConnectionAfterTooManyErrorsWithBadDeviceTokenCountingDouble() async throws {
        try await withEmulator(configure: {
            $0.connectionBehavior = ConnectionBehavior(oneStreamUntilAuthenticated: false, throttleAfterRejection: false,
                                                       goAwayAfterErrors: 4)
        }) { emu in
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            // Two unknown tokens = four error points.
            expectRejection(try await c.send(emu.push(to: String(repeating: "01", count: 32), jwt: jwt)), .badDeviceToken)
            expectRejection(try await c.send(emu.push(to: String(repeating: "02", count: 32), jwt: jwt)), .badDeviceToken)
            #expect(await eventuallyGoAway(c) == #"{"reason":"BadDeviceToken"}"#)

            // 410s are not errors: a connection survives many of them.
            let gone = try emu.issueToken()
            _ = try emu.services.tokens.unregister(gone, at: emu.clock.now())
            let d = try await emu.connect()
            for _ in 0..<6 { #expect(try await d.send(emu.push(to: gone, jwt: jwt)).status == 410) }
            #expect(!d.isClosed)
        }
    }

    @Test func idleConnectionsGetGoAwayWithIdleTimeout() async throws {
        try await withEmulator(configure: { $0.idleTimeoutSeconds = 0.3 }) { emu in
            let c = try await emu.connect()
            #expect(await eventuallyGoAway(c, timeout: 10) == #"{"reason":"IdleTimeout"}"#)
        }
    }
}

/// Waits for the connection to close and returns its GOAWAY debug data as text.
func eventuallyGoAway(_ c: H2ClientConnection, timeout: TimeInterval = 5) async -> String? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if let g = await c.lastGoAway() { return String(decoding: g.debugData, as: UTF8.self) }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return nil
}

@Suite("Strict profile without throttling")
struct OneStreamUntilAuthenticatedTests {
    @Test func aValidTokenLiftsTheLimitEvenWhenItsPushIsRefused() async throws {
        try await withEmulator(configure: {
            $0.connectionBehavior = ConnectionBehavior(oneStreamUntilAuthenticated: true, throttleAfterRejection: false,
                                                       goAwayAfterErrors: 0)
            $0.maxConcurrentStreams = 500
        }) { emu in
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            _ = try await c.send(emu.push(to: String(repeating: "01", count: 32), jwt: nil))
            #expect(await c.remoteMaxConcurrentStreams() == 1)
            // A valid token on a push to an unknown device: refused, but the connection is now authenticated.
            expectRejection(try await c.send(emu.push(to: String(repeating: "01", count: 32), jwt: jwt)), .badDeviceToken)
            _ = try await c.send(emu.push(to: String(repeating: "01", count: 32), jwt: jwt))
            #expect(await c.remoteMaxConcurrentStreams() == 500)
        }
    }
}

@Suite("Key changes reach open connections")
struct KeyRemovalTests {
    @Test func removingTheKeyRefusesTheTokenOnAnOpenConnection() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken()
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200)
            try emu.services.keys.remove(keyId: DevCertificates.sampleKeyId)
            expectRejection(try await c.send(emu.push(to: token, jwt: jwt)), .invalidProviderToken)
        }
    }

    @Test func goAwayFaultReasonIsEscapedJSON() {
        let text = String(decoding: PushPipeline.goAwayPayload(#"Sh"ut\down"#), as: UTF8.self)
        #expect(text == #"{"reason":"Sh\"ut\\down"}"#)
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) != nil)
    }
}
