import APNsEmulator
import APNsProtocol
import EmulatorTesting
import Foundation
import H2Transport
import OpenSSLSupport
import StateStore
import Testing

/// Every reason the provider API can answer, reached over real TLS + HTTP/2 from our client.
@Suite("Provider API over TLS")
struct ProviderAPIConformanceTests {
    @Test func validPushIsAcceptedWithApnsIdEchoedAndJournaled() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken()
            let connection = try await emu.connect()
            let id = "0F5E9C2B-7A11-4D3E-9B8C-ABCDEF012345"
            let response = try await connection.send(emu.push(to: token, jwt: try emu.sampleJWT(),
                                                              headers: [H2Header("apns-id", id)]))
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response["apns-id"] == id)
            #expect(response["apns-unique-id"] == nil)
            let entry = try #require(emu.services.journal.query(JournalFilter(apnsId: id)).first)
            #expect(entry.status == 200 && entry.token == token && entry.topic == "com.example.app")
            #expect(entry.authMode == "token" && entry.teamId == DevCertificates.sampleTeamId)
            #expect(entry.headers.contains { $0[0] == "authorization" && $0[1].hasSuffix(".<redacted>") })
        }
    }

    @Test func sandboxResponsesCarryApnsUniqueId() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken(environment: .sandbox)
            let connection = try await emu.connect(.sandbox)
            let response = try await connection.send(emu.push(to: token, environment: .sandbox, jwt: try emu.sampleJWT()))
            #expect(response.status == 200)
            #expect(response["apns-unique-id"].map { APNsID.isCanonical($0.utf8) } == true)
        }
    }

    @Test func requestShapeReasons() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken()
            let jwt = try emu.sampleJWT()
            let c = try await emu.connect()
            let id = "11111111-2222-3333-4444-555555555555"
            func send(_ r: H2Request) async throws -> H2Response { try await c.send(r) }
            expectRejection(try await send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-id", id)], method: "GET")),
                            .methodNotAllowed, apnsId: id)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, path: "/3/devices/\(token)")), .badPath)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, path: "/3/device/")), .missingDeviceToken)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-topic", "com.example.app")])),
                            .duplicateHeaders)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-id", "nope")])), .badMessageId,
                            apnsId: "nope")
            expectRejection(try await send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-push-type", "nope")])),
                            .invalidPushType)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-priority", "3")])), .badPriority)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-expiration", "soon")])),
                            .badExpirationDate)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-collapse-id", String(repeating: "c", count: 65))])),
                            .badCollapseId)
            expectRejection(try await send(emu.push(to: "xyz", jwt: jwt)), .badDeviceToken)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, topic: nil)), .missingTopic)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, headers: [H2Header("apns-push-type", "voip")])), .badTopic)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, payload: "")), .payloadEmpty)
            expectRejection(try await send(emu.push(to: token, jwt: jwt, payload: "[]")), .payloadEmpty)
            let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#
            expectRejection(try await send(emu.push(to: token, jwt: jwt, payload: big)), .payloadTooLarge)
        }
    }

    @Test func deviceTokenReasonsIncludingGoneTimestamps() async throws {
        try await withEmulator { emu in
            let jwt = try emu.sampleJWT()
            let c = try await emu.connect()
            let sandboxToken = try emu.issueToken(environment: .sandbox)
            expectRejection(try await c.send(emu.push(to: sandboxToken, jwt: jwt)), .badDeviceToken)
            let otherApp = try emu.issueToken(bundleId: "com.example.other")
            expectRejection(try await c.send(emu.push(to: otherApp, jwt: jwt)), .deviceTokenNotForTopic)
            expectRejection(try await c.send(emu.push(to: String(repeating: "0f", count: 32), jwt: jwt)), .badDeviceToken)

            let gone = try emu.issueToken()
            let at = emu.clock.now() - 60_000
            _ = try emu.services.tokens.unregister(gone, at: at)
            expectRejection(try await c.send(emu.push(to: gone, jwt: jwt)), .unregistered, timestamp: at)
            let expired = try emu.issueToken()
            _ = try emu.services.tokens.expire(expired, at: at + 1)
            expectRejection(try await c.send(emu.push(to: expired, jwt: jwt)), .expiredToken, timestamp: at + 1)

            // Live Activity tokens are longer and still valid.
            let live = try emu.issueToken(kind: .liveActivity)
            #expect(live.count > 64)
            let r = try await c.send(emu.push(to: live, jwt: jwt, topic: "com.example.app.push-type.liveactivity",
                                              headers: [H2Header("apns-push-type", "liveactivity")]))
            #expect(r.status == 200)
        }
    }

    @Test func providerTokenReasons() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken()
            expectRejection(try await emu.connect().send(emu.push(to: token, jwt: nil)), .missingProviderToken)
            expectRejection(try await emu.connect().send(emu.push(to: token, jwt: "x.y.z")), .invalidProviderToken)
            expectRejection(try await emu.connect().send(emu.push(to: token, jwt: try emu.sampleJWT(ageSeconds: 3700))),
                            .expiredProviderToken)
            let stranger = try PrivateKey.generateP256()
            let forged = try ProviderTokenSigner.makeToken(privateKey: stranger, keyId: DevCertificates.sampleKeyId,
                                                           teamId: DevCertificates.sampleTeamId, issuedAt: emu.clock.now() / 1000)
            expectRejection(try await emu.connect().send(emu.push(to: token, jwt: forged)), .invalidProviderToken)
        }
    }

    @Test func perConnectionTokenRulesOnTheVirtualClock() async throws {
        try await withEmulator { emu in
            let token = try emu.issueToken()
            let c = try await emu.connect()
            let first = try emu.sampleJWT()
            #expect(try await c.send(emu.push(to: token, jwt: first)).status == 200)
            emu.clock.advance(bySeconds: 10 * 60)
            let second = try emu.sampleJWT()
            expectRejection(try await c.send(emu.push(to: token, jwt: second)), .tooManyProviderTokenUpdates)
            #expect(try await c.send(emu.push(to: token, jwt: first)).status == 200)
            // A new connection may use the new token at once (the rule is per connection).
            #expect(try await emu.connect().send(emu.push(to: token, jwt: second)).status == 200)
            emu.clock.advance(bySeconds: 10 * 60)
            #expect(try await c.send(emu.push(to: token, jwt: second)).status == 200)
            emu.clock.advance(bySeconds: 3601)
            expectRejection(try await c.send(emu.push(to: token, jwt: second)), .expiredProviderToken)

            // Another team on a bound connection, and an unrelated key of the same team.
            let otherTeam = try PrivateKey.generateP256()
            try emu.services.keys.register(ProviderKeyRecord(keyId: "OTHERKEY01", teamId: "OTHERTEAM1", kind: .team,
                                                             publicKeyPem: otherTeam.publicKeyPEM, createdAt: emu.clock.now()))
            let unrelated = try PrivateKey.generateP256()
            try emu.services.keys.register(ProviderKeyRecord(keyId: "SAMETEAM02", teamId: DevCertificates.sampleTeamId,
                                                             kind: .team, publicKeyPem: unrelated.publicKeyPEM, createdAt: emu.clock.now()))
            let bound = try await emu.connect()
            #expect(try await bound.send(emu.push(to: token, jwt: try emu.sampleJWT())).status == 200)
            emu.clock.advance(bySeconds: 21 * 60)
            let now = emu.clock.now() / 1000
            expectRejection(try await bound.send(emu.push(to: token, jwt: try ProviderTokenSigner.makeToken(
                privateKey: otherTeam, keyId: "OTHERKEY01", teamId: "OTHERTEAM1", issuedAt: now))), .invalidProviderToken)
            expectRejection(try await bound.send(emu.push(to: token, jwt: try ProviderTokenSigner.makeToken(
                privateKey: unrelated, keyId: "SAMETEAM02", teamId: DevCertificates.sampleTeamId, issuedAt: now))),
                            .unrelatedKeyIdInToken)
        }
    }

    @Test func keyKindsAcrossEnvironments() async throws {
        try await withEmulator { emu in
            let now = emu.clock.now()
            let scoped = try PrivateKey.generateP256()
            try emu.services.keys.register(ProviderKeyRecord(keyId: "SCOPEDKEY1", teamId: "SCOPETEAM1", kind: .teamScoped,
                                                             environment: .sandbox, publicKeyPem: scoped.publicKeyPEM, createdAt: now))
            let topicKey = try PrivateKey.generateP256()
            try emu.services.keys.register(ProviderKeyRecord(keyId: "TOPICKEY01", teamId: "SCOPETEAM1", kind: .topic,
                                                             environment: .production, topics: ["com.example.app"],
                                                             publicKeyPem: topicKey.publicKeyPEM, createdAt: now))
            func jwt(_ key: PrivateKey, _ kid: String) throws -> String {
                try ProviderTokenSigner.makeToken(privateKey: key, keyId: kid, teamId: "SCOPETEAM1", issuedAt: now / 1000)
            }
            let prodToken = try emu.issueToken()
            let sandboxToken = try emu.issueToken(environment: .sandbox)
            // Team-scoped sandbox key: fine in sandbox, refused in production.
            #expect(try await emu.connect(.sandbox).send(emu.push(to: sandboxToken, environment: .sandbox, jwt: try jwt(scoped, "SCOPEDKEY1"))).status == 200)
            expectRejection(try await emu.connect().send(emu.push(to: prodToken, jwt: try jwt(scoped, "SCOPEDKEY1"))),
                            .badEnvironmentKeyIdInToken)
            // Topic key: its topic in its environment only.
            #expect(try await emu.connect().send(emu.push(to: prodToken, jwt: try jwt(topicKey, "TOPICKEY01"))).status == 200)
            let other = try emu.issueToken(bundleId: "com.example.other")
            expectRejection(try await emu.connect().send(emu.push(to: other, jwt: try jwt(topicKey, "TOPICKEY01"),
                                                                  topic: "com.example.other")), .invalidProviderToken)
            expectRejection(try await emu.connect(.sandbox).send(emu.push(to: sandboxToken, environment: .sandbox,
                                                                          jwt: try jwt(topicKey, "TOPICKEY01"))),
                            .badEnvironmentKeyIdInToken)
        }
    }

    @Test func undocumentedBadEnvironmentSpellingIsASwitch() async throws {
        try await withEmulator(configure: { $0.policy.useUndocumentedBadEnvironmentKeySpelling = true }) { emu in
            let scoped = try PrivateKey.generateP256()
            try emu.services.keys.register(ProviderKeyRecord(keyId: "SCOPEDKEY1", teamId: "SCOPETEAM1", kind: .teamScoped,
                                                             environment: .sandbox, publicKeyPem: scoped.publicKeyPEM, createdAt: emu.clock.now()))
            let jwt = try ProviderTokenSigner.makeToken(privateKey: scoped, keyId: "SCOPEDKEY1", teamId: "SCOPETEAM1",
                                                        issuedAt: emu.clock.now() / 1000)
            let r = try await emu.connect().send(emu.push(to: try emu.issueToken(), jwt: jwt))
            #expect(r.status == 403)
            #expect(reasonBody(r)?.reason == "BadEnvironmentKeyInToken")
        }
    }

    /// A push whose `:authority` is `authority`, whatever listener it is sent to.
    func pushNamingHost(_ authority: String, token: String, _ emu: TestEmulator) throws -> H2Request {
        H2Request(authority: authority, path: "/3/device/\(token)",
                  headers: [H2Header("authorization", "bearer \(try emu.sampleJWT())"), H2Header("apns-topic", "com.example.app")],
                  body: Array(#"{"aps":{}}"#.utf8))
    }

    @Test func environmentFollowsTheAppleHostNamedBySNIOrAuthority() async throws {
        try await withEmulator { emu in
            let sandboxToken = try emu.issueToken(environment: .sandbox)
            // The production listener, but SNI and :authority name the sandbox host.
            let client = try H2Client(tls: TLSClientConfiguration(trustRootsFile: emu.endpoints.ca))
            defer { client.shutdown() }
            let c = try await client.connect(host: "127.0.0.1", port: emu.port(.production), serverName: "api.sandbox.push.apple.com")
            let r = try await c.send(try pushNamingHost("api.sandbox.push.apple.com", token: sandboxToken, emu))
            #expect(r.status == 200)
            #expect(r["apns-unique-id"] != nil)
            // Dialled by IP with no Apple name anywhere: the listener decides.
            let byIP = try await client.connect(host: "127.0.0.1", port: emu.port(.sandbox), serverName: nil)
            let r2 = try await byIP.send(try pushNamingHost("127.0.0.1:\(emu.port(.sandbox))", token: sandboxToken, emu))
            #expect(r2.status == 200)
        }
    }

    @Test func listenerAloneDecidesWhenHostNamesAreSwitchedOff() async throws {
        try await withEmulator(configure: { $0.environmentFromHostNames = false }) { emu in
            let sandboxToken = try emu.issueToken(environment: .sandbox)
            let client = try H2Client(tls: TLSClientConfiguration(trustRootsFile: emu.endpoints.ca))
            defer { client.shutdown() }
            // Production listener, sandbox host name: the listener wins, so the sandbox token is foreign here.
            let c = try await client.connect(host: "127.0.0.1", port: emu.port(.production), serverName: "api.sandbox.push.apple.com")
            let r = try await c.send(try pushNamingHost("api.sandbox.push.apple.com", token: sandboxToken, emu))
            expectRejection(r, .badDeviceToken)
        }
    }

    @Test func tooManyRequestsForOneTokenWhenRateLimited() async throws {
        try await withEmulator(configure: { $0.tokenRateLimit = 3; $0.tokenRateWindowSeconds = 60 }) { emu in
            let token = try emu.issueToken()
            let c = try await emu.connect()
            let jwt = try emu.sampleJWT()
            for _ in 0..<3 { #expect(try await c.send(emu.push(to: token, jwt: jwt)).status == 200) }
            expectRejection(try await c.send(emu.push(to: token, jwt: jwt)), .tooManyRequests)
            // Another token is not affected.
            #expect(try await c.send(emu.push(to: try emu.issueToken(), jwt: jwt)).status == 200)
        }
    }
}

@Suite("Transport-only benchmarking mode")
struct TransportOnlyTests {
    @Test func transportOnlyAnswers200WithoutValidatingOrJournaling() async throws {
        try await withEmulator(configure: { $0.transportOnly = true }) { emu in
            let r = try await emu.connect().send(emu.push(to: "not-a-token", jwt: nil, topic: nil, method: "GET"))
            #expect(r.status == 200)
            #expect(r["x-apns-emulator"] == EmulatorVersion.current)
            #expect(emu.services.journal.count() == 0)
        }
    }
}
