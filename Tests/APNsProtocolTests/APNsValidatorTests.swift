import APNsProtocol
import H2Transport
import OpenSSLSupport
import Testing

/// The pipeline with no sockets: one test per rule, each checking the exact reason.
@Suite struct APNsValidatorTests {
    let key: TestKey
    let jwt: String
    var h = Harness()

    init() throws {
        key = try TestKey()
        jwt = try key.token(issuedAt: testNow / 1000 - 10)
        h.lookups.add(key.record)
        h.lookups.add(token: appToken, DeviceTokenInfo(bundleId: "com.example.app", environment: .production))
    }

    @Test mutating func validPushIsAcceptedWithItsFields() throws {
        let result = h.run(push(jwt: jwt, headers: [("apns-priority", "5"), ("apns-expiration", "0"),
                                                    ("apns-collapse-id", "c1"), ("apns-push-type", "alert")]))
        let accepted = try result.get()
        #expect(accepted.token == appToken && accepted.bundleId == "com.example.app" && accepted.topic == "com.example.app")
        #expect(accepted.priority == 5 && accepted.expiration == 0 && accepted.collapseId == "c1")
        #expect(accepted.pushType == .alert)
        #expect(APNsID.isCanonical(accepted.apnsId.utf8))
        #expect(accepted.apnsId == accepted.apnsId.lowercased())
    }

    @Test mutating func apnsIdIsEchoedExactlyAsSentOnSuccessAndOnError() throws {
        let id = "123E4567-e89b-12D3-a456-426614174000"
        #expect(try h.run(push(jwt: jwt, headers: [("apns-id", id)])).get().apnsId == id)
        guard case .failure(let r) = h.run(push(jwt: jwt, topic: nil, headers: [("apns-id", id)])) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(r.apnsId == id)
    }

    @Test mutating func uppercaseApnsIdIsASwitch() throws {
        let upper = "123E4567-E89B-12D3-A456-426614174000"
        #expect(try h.run(push(jwt: jwt, headers: [("apns-id", upper)])).get().apnsId == upper)
        h.policy.acceptUppercaseApnsId = false
        #expect(h.reason(push(jwt: jwt, headers: [("apns-id", upper)])) == .badMessageId)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-id", upper.lowercased())])) == nil)
    }

    @Test mutating func aRefusedRequestsAnswerEchoesItsApnsIdAsSentEvenMalformed() {
        for sent in ["not-a-uuid", "123E4567-E89B-12D3-A456-426614174000", ""] {
            h.policy.acceptUppercaseApnsId = false
            guard case .failure(let r) = h.run(push(jwt: jwt, headers: [("apns-id", sent)])) else {
                Issue.record("\(sent) was accepted")
                continue
            }
            #expect(r.reason == .badMessageId)
            #expect(r.apnsId == sent, "the answer's apns-id is the request's, byte for byte")
        }
        // A refusal for another reason echoes it too; without one, an id is generated.
        guard case .failure(let topic) = h.run(push(jwt: jwt, headers: [("apns-id", "x1"), ("apns-priority", "7")])),
              case .failure(let none) = h.run(push(method: "GET", jwt: jwt)) else {
            Issue.record("expected refusals")
            return
        }
        #expect(topic.apnsId == "x1")
        #expect(APNsID.isCanonical(none.apnsId.utf8))
    }

    @Test mutating func methodAndPathRules() {
        #expect(h.reason(push(method: "GET", jwt: jwt)) == .methodNotAllowed)
        #expect(h.reason(push(path: "/3/devices/\(appToken)", jwt: jwt)) == .badPath)
        #expect(h.reason(push(path: "/4/device/\(appToken)", jwt: jwt)) == .badPath)
        #expect(h.reason(push(path: "/3/device/", jwt: jwt)) == .missingDeviceToken)
        #expect(h.reason(push(path: "/3/device", jwt: jwt)) == .missingDeviceToken)
        #expect(h.reason(push(path: "/3/devic", jwt: jwt)) == .badPath)
        #expect(h.reason(push(path: "/3/device-\(appToken)", jwt: jwt)) == .badPath)
        #expect(h.reason(push(path: "/3/device/\(appToken)/x", jwt: jwt)) == .badPath)
    }

    @Test mutating func headerValueRules() {
        #expect(h.reason(push(jwt: jwt, headers: [("apns-topic", "com.example.app")])) == .duplicateHeaders)
        #expect(h.reason(push(jwt: jwt, headers: [("x-custom", "1"), ("x-custom", "2")])) == .duplicateHeaders)
        // Distinct names that share the header list's repeat-summary bit are compared, not taken for repeats.
        #expect(h.reason(push(jwt: jwt, headers: [("content-type", "application/json"), ("apns-collapse-id", "c")])) == nil)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-id", "not-a-uuid")])) == .badMessageId)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-id", "123e4567e89b12d3a456426614174000")])) == .badMessageId)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-push-type", "banner")])) == .invalidPushType)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-priority", "7")])) == .badPriority)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-priority", "high")])) == .badPriority)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-expiration", "-1")])) == .badExpirationDate)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-expiration", "tomorrow")])) == .badExpirationDate)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-collapse-id", String(repeating: "x", count: 65))])) == .badCollapseId)
        #expect(h.reason(push(jwt: jwt, headers: [("apns-collapse-id", String(repeating: "x", count: 64))])) == nil)
    }

    @Test mutating func anFCMBodyWithNothingToShowIsAcceptedWithWordsOnHowFCMWouldHaveSentIt() throws {
        let fcm = try h.run(push(jwt: jwt, headers: [("apns-push-type", "alert")],
                                 body: #"{"notification":{"title":"t","body":"b"}}"#)).get()
        #expect(fcm.summary.warnings.contains { $0.contains("FCM would have sent aps.alert {title, body}") })
        // An alert with something to show is not parsed again, whatever else it carries.
        let shown = try h.run(push(jwt: jwt, headers: [("apns-push-type", "alert")],
                                   body: #"{"aps":{"alert":"hi"},"notification":{"title":"t"}}"#)).get()
        #expect(shown.summary.warnings.isEmpty)
    }

    @Test mutating func absentPushTypeIsAlertByDefaultAndInvalidWhenRequired() throws {
        let accepted = try h.run(push(jwt: jwt)).get()
        #expect(accepted.pushType == .alert)
        #expect(accepted.summary.warnings.contains { $0.contains("apns-push-type absent") })
        h.policy.defaultPushTypeToAlert = false
        #expect(h.reason(push(jwt: jwt)) == .invalidPushType)
    }

    @Test mutating func backgroundPushesMustUsePriorityFive() throws {
        let bg = #"{"aps":{"content-available":1}}"#
        #expect(h.reason(push(jwt: jwt, headers: [("apns-push-type", "background"), ("apns-priority", "10")], body: bg)) == .badPriority)
        #expect(try h.run(push(jwt: jwt, headers: [("apns-push-type", "background")], body: bg)).get().priority == 5)
        h.policy.rejectBackgroundPriority10 = false
        #expect(h.reason(push(jwt: jwt, headers: [("apns-push-type", "background"), ("apns-priority", "10")], body: bg)) == nil)
    }

    @Test mutating func theConnectionsLastTokenIsReusedOnlyForTheSameDevice() throws {
        let other = String(repeating: "cd", count: 32)
        h.lookups.add(token: other, DeviceTokenInfo(bundleId: "com.example.app", environment: .production))
        #expect(try h.run(push(token: appToken.uppercased(), jwt: jwt)).get().token == appToken)
        #expect(try h.run(push(token: appToken, jwt: jwt)).get().token == appToken)
        #expect(try h.run(push(token: other, jwt: jwt)).get().token == other)
        #expect(try h.run(push(token: other.uppercased(), jwt: jwt)).get().token == other)
        #expect(try h.run(push(token: appToken, jwt: jwt)).get().token == appToken)
        // Same length and letters but a different device right after: not mistaken for the last one.
        #expect(h.reason(push(token: "ba" + String(appToken.dropFirst(2)), jwt: jwt)) == .badDeviceToken)
    }

    @Test mutating func deviceTokenFormatAndRegistry() {
        #expect(h.reason(push(token: "zz" + String(appToken.dropFirst(2)), jwt: jwt)) == .badDeviceToken)
        #expect(h.reason(push(token: "abc", jwt: jwt)) == .badDeviceToken)
        #expect(h.reason(push(token: String(repeating: "cd", count: 32), jwt: jwt)) == .badDeviceToken)
        // Upper-case hex is the same token.
        #expect(h.reason(push(token: appToken.uppercased(), jwt: jwt)) == nil)
        // A sandbox token sent to production.
        let sandboxToken = String(repeating: "ef", count: 32)
        h.lookups.add(token: sandboxToken, DeviceTokenInfo(bundleId: "com.example.app", environment: .sandbox))
        #expect(h.reason(push(token: sandboxToken, jwt: jwt)) == .badDeviceToken)
        // Another app's token.
        let otherApp = String(repeating: "12", count: 32)
        h.lookups.add(token: otherApp, DeviceTokenInfo(bundleId: "com.example.other", environment: .production))
        #expect(h.reason(push(token: otherApp, jwt: jwt)) == .deviceTokenNotForTopic)
    }

    /// The connection remembers its last topic to skip rebuilding it; a different topic in between, or one of
    /// the same length, must still be read afresh.
    @Test mutating func eachPushIsJudgedByItsOwnTopicOnAConnectionThatChangesTopics() {
        for (topic, expected) in [("com.example.app", nil), ("com.example.other", APNsReason.deviceTokenNotForTopic),
                                  ("com.example.app", nil), ("com.example.apq", .deviceTokenNotForTopic),
                                  ("com.example.app", nil)] {
            #expect(h.reason(push(jwt: jwt, topic: topic)) == expected, "topic \(topic)")
            guard case .failure(let r) = h.run(push(jwt: jwt, topic: topic)), r.reason == .deviceTokenNotForTopic else { continue }
            #expect(r.summary.topic == topic)
        }
    }

    @Test mutating func goneTokensCarryTheirTimestamp() {
        let gone = String(repeating: "34", count: 32)
        h.lookups.add(token: gone, DeviceTokenInfo(bundleId: "com.example.app", environment: .production, unregisteredAt: testNow - 5000))
        guard case .failure(let r) = h.run(push(token: gone, jwt: jwt)) else { Issue.record("expected 410"); return }
        #expect(r.reason == .unregistered && r.timestamp == testNow - 5000)
        let expired = String(repeating: "56", count: 32)
        h.lookups.add(token: expired, DeviceTokenInfo(bundleId: "com.example.app", environment: .production, expiredAt: testNow - 1))
        guard case .failure(let e) = h.run(push(token: expired, jwt: jwt)) else { Issue.record("expected 410"); return }
        #expect(e.reason == .expiredToken && e.timestamp == testNow - 1)
        // Unregistration in the future has not happened yet.
        let later = String(repeating: "78", count: 32)
        h.lookups.add(token: later, DeviceTokenInfo(bundleId: "com.example.app", environment: .production, unregisteredAt: testNow + 1000))
        #expect(h.reason(push(token: later, jwt: jwt)) == nil)
    }

    @Test mutating func providerTokenRules() throws {
        #expect(h.reason(push(jwt: nil)) == .missingProviderToken)
        var basic = push(jwt: nil)
        basic.headers.append(name: "authorization", value: "basic abc")
        #expect(h.reason(basic) == .missingProviderToken)
        #expect(h.reason(push(jwt: "not.a.jwt")) == .invalidProviderToken)
        let unknown = try TestKey(keyId: "UNKNOWN001")
        #expect(h.reason(push(jwt: try unknown.token(issuedAt: testNow / 1000))) == .invalidProviderToken)
        #expect(h.reason(push(jwt: try key.token(issuedAt: testNow / 1000, teamId: "TEAM999999"))) == .invalidProviderToken)
        var fresh = Harness()
        fresh.lookups.add(key.record)
        fresh.lookups.add(token: appToken, DeviceTokenInfo(bundleId: "com.example.app", environment: .production))
        #expect(fresh.reason(push(jwt: try key.token(issuedAt: testNow / 1000 - 3601))) == .expiredProviderToken)
        #expect(fresh.reason(push(jwt: try key.token(issuedAt: testNow / 1000 + 3601))) == .invalidProviderToken)
        // The extremes answer, not trap on the age arithmetic.
        #expect(fresh.reason(push(jwt: try key.token(issuedAt: .min))) == .expiredProviderToken)
        #expect(fresh.reason(push(jwt: try key.token(issuedAt: .max))) == .invalidProviderToken)
        #expect(fresh.reason(push(jwt: try key.token(issuedAt: testNow / 1000 - 3599))) == nil)
    }

    @Test mutating func tokenAgesOnTheVirtualClockAndRefreshIsLimitedPerConnection() throws {
        #expect(h.reason(push(jwt: jwt)) == nil)
        h.now += 19 * 60 * 1000
        let second = try key.token(issuedAt: h.now / 1000)
        #expect(h.reason(push(jwt: second)) == .tooManyProviderTokenUpdates)
        #expect(h.reason(push(jwt: jwt)) == nil)
        h.now += 60 * 1000
        #expect(h.reason(push(jwt: second)) == nil)
        h.now += 3601 * 1000
        #expect(h.reason(push(jwt: second)) == .expiredProviderToken)
    }

    @Test mutating func aTopicAnotherTeamDeclaredIsDisallowedForThisTeamsTokens() throws {
        #expect(h.reason(push(jwt: jwt)) == nil, "undeclared: open to every team")
        let owner = try TestKey(keyId: "OWNERKEY01", teamId: "TEAM000002", topics: ["com.example.app"])
        h.lookups.add(owner.record)
        // The connection's cached answer follows the key registry's generation.
        guard case .failure(let refused) = h.run(push(jwt: jwt)) else {
            Issue.record("expected TopicDisallowed")
            return
        }
        #expect(refused.reason == .topicDisallowed)
        #expect(refused.summary.authDetail == "com.example.app belongs to team TEAM000002, not to key KEY0000001's team TEAM000001")
        #expect(h.reason(push(jwt: jwt, topic: "com.example.app.voip", headers: [("apns-push-type", "voip")]))
                == .topicDisallowed)

        var owners = Harness()
        owners.lookups.add(owner.record)
        owners.lookups.add(token: appToken, DeviceTokenInfo(bundleId: "com.example.app", environment: .production))
        #expect(owners.reason(push(jwt: try owner.token(issuedAt: testNow / 1000))) == nil)

        var switched = h
        switched.state = ConnectionAuthState()
        switched.policy.foreignTeamTopicReason = .invalidProviderToken
        #expect(switched.reason(push(jwt: jwt)) == .invalidProviderToken)

        // Declared by this team too: both may push.
        h.lookups.add(try TestKey(keyId: "MINEKEY001", topics: ["com.example.app"]).record)
        #expect(h.reason(push(jwt: jwt)) == nil)
    }

    @Test mutating func keyKindsAcrossEnvironments() throws {
        let scoped = try TestKey(keyId: "SCOPED0001", kind: .teamScoped, environment: .sandbox)
        h.lookups.add(scoped.record)
        var fresh = h
        fresh.state = ConnectionAuthState()
        #expect(fresh.reason(push(jwt: try scoped.token(issuedAt: testNow / 1000))) == .badEnvironmentKeyIdInToken)
        fresh.policy.useUndocumentedBadEnvironmentKeySpelling = true
        #expect(fresh.reason(push(jwt: try scoped.token(issuedAt: testNow / 1000))) == .badEnvironmentKeyIdInToken)

        let topicKey = try TestKey(keyId: "TOPICKEY01", kind: .topic, environment: .production, topics: ["com.example.other"])
        h.lookups.add(topicKey.record)
        var topicConn = h
        topicConn.state = ConnectionAuthState()
        #expect(topicConn.reason(push(jwt: try topicKey.token(issuedAt: testNow / 1000))) == .invalidProviderToken)
        topicConn.state = ConnectionAuthState()
        topicConn.policy.topicKeyOutsideTopicsReason = .topicDisallowed
        #expect(topicConn.reason(push(jwt: try topicKey.token(issuedAt: testNow / 1000))) == .topicDisallowed)

        // A legacy team key works in both environments.
        var sandbox = Harness()
        sandbox.environment = .sandbox
        sandbox.lookups.add(key.record)
        sandbox.lookups.add(token: appToken, DeviceTokenInfo(bundleId: "com.example.app", environment: .sandbox))
        #expect(sandbox.reason(push(jwt: jwt)) == nil)
    }

    @Test mutating func topicRules() {
        #expect(h.reason(push(jwt: jwt, topic: nil)) == .missingTopic)
        #expect(h.reason(push(jwt: jwt, topic: "com.example.app", headers: [("apns-push-type", "voip")])) == .badTopic)
        #expect(h.reason(push(jwt: jwt, topic: "com.example.app.voip", headers: [("apns-push-type", "voip")])) == nil)
        #expect(h.reason(push(jwt: jwt, topic: "com.example.app.push-type.liveactivity",
                              headers: [("apns-push-type", "liveactivity")])) == nil)
    }

    @Test mutating func payloadRules() {
        #expect(h.reason(push(jwt: jwt, body: "")) == .payloadEmpty)
        #expect(h.reason(push(jwt: jwt, body: "[1,2]")) == .payloadEmpty)
        h.policy.nonObjectPayloadReason = .badRequestPayload
        #expect(h.reason(push(jwt: jwt, body: "not json")) == .badRequestPayload)
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 4096 - 20) + #""}}"#
        #expect(big.utf8.count == 4096)
        #expect(h.reason(push(jwt: jwt, body: big)) == nil)
        #expect(h.reason(push(jwt: jwt, body: big + " ")) == .payloadTooLarge)
        let voip = #"{"aps":{},"d":""# + String(repeating: "x", count: 5000) + #""}"#
        #expect(h.reason(push(jwt: jwt, topic: "com.example.app.voip", headers: [("apns-push-type", "voip")], body: voip)) == nil)
    }

    /// The connection remembers its last payload's scan; a different payload of the same length must be
    /// scanned again, not answered from that memo.
    @Test mutating func aRepeatedPayloadLengthIsNotMistakenForTheSamePayload() throws {
        let alert = #"{"aps":{"alert":"hi","badge":1}}"#
        let noAPS = #"{"xxx":{"alert":"hi","badge":1}}"#
        let notObject = #"["aps",{"alert":"hi","badge":1}]"#
        #expect(alert.utf8.count == noAPS.utf8.count && alert.utf8.count == notObject.utf8.count)
        guard case .success(let first) = h.run(push(jwt: jwt, body: alert)) else { Issue.record("alert refused"); return }
        #expect(first.payloadSummary.hasAPS && first.payloadSummary.hasAlert && first.payloadSummary.hasBadge)
        guard case .success(let second) = h.run(push(jwt: jwt, body: noAPS)) else { Issue.record("refused"); return }
        #expect(!second.payloadSummary.hasAPS && !second.payloadSummary.hasAlert)
        #expect(h.reason(push(jwt: jwt, body: notObject)) == .payloadEmpty)
        guard case .success(let again) = h.run(push(jwt: jwt, body: alert)) else { Issue.record("refused"); return }
        #expect(again.payloadSummary == first.payloadSummary)
    }

    /// The transport reuses a request's body buffer for the stream's next request; a push that held it would make
    /// that request allocate a new one. So an accepted push keeps a copy, and pushes repeating the connection's
    /// last payload share that one copy.
    @Test mutating func anAcceptedPushKeepsACopyOfThePayloadSharedByRepeatsNotTheRequestsBuffer() throws {
        let body = #"{"aps":{"alert":"hi"}}"#
        let first = push(jwt: jwt, body: body), second = push(jwt: jwt, body: body)
        let a = try h.run(first).get(), b = try h.run(second).get()
        func address(_ bytes: [UInt8]) -> UnsafeRawPointer? { bytes.withUnsafeBytes { $0.baseAddress } }
        #expect(a.payload == Array(body.utf8) && b.payload == a.payload)
        #expect(address(a.payload) != address(first.body) && address(b.payload) != address(second.body))
        #expect(address(a.payload) == address(b.payload), "a repeated payload shares the first one's copy")
        // A new payload gets a copy of its own; the pushes before it keep theirs unchanged.
        let c = try h.run(push(jwt: jwt, body: #"{"aps":{"badge":2}}"#)).get()
        #expect(address(c.payload) != address(a.payload) && a.payload == Array(body.utf8))
    }

    @Test mutating func certificateAuth() {
        let cert = ClientCertificateInfo(trusted: true, currentlyValid: true, bundleId: "com.example.app",
                                         environments: [.production], topics: [])
        h.auth = .certificate(cert)
        #expect(h.reason(push(jwt: nil, topic: nil)) == nil)
        #expect(h.reason(push(jwt: "ignored.with.certificates", topic: "com.example.app")) == nil)
        // The VoIP topic is allowed for the certificate; the token is the app's, so it is accepted.
        #expect(h.reason(push(jwt: nil, topic: "com.example.app.voip", headers: [("apns-push-type", "voip")],
                              body: #"{"aps":{}}"#)) == nil)
        #expect(h.reason(push(jwt: nil, topic: "com.other.app")) == .topicDisallowed)
        #expect(h.reason(push(jwt: nil, headers: [("apns-push-type", "location")])) == .invalidPushType)
        h.environment = .sandbox
        #expect(h.reason(push(jwt: nil)) == .badCertificateEnvironment)
        h.environment = .production
        h.auth = .certificate(ClientCertificateInfo(trusted: false, currentlyValid: true, bundleId: "com.example.app",
                                                    environments: [.production], topics: []))
        #expect(h.reason(push(jwt: nil)) == .badCertificate)
        h.auth = .certificate(ClientCertificateInfo(trusted: true, currentlyValid: false, bundleId: "com.example.app",
                                                    environments: [.production], topics: []))
        #expect(h.reason(push(jwt: nil)) == .badCertificate)
        h.auth = .certificate(ClientCertificateInfo(trusted: true, currentlyValid: true, bundleId: "com.example.app",
                                                    environments: [.production], topics: ["com.example.app", "com.example.widget"]))
        #expect(h.reason(push(jwt: nil, topic: nil)) == .missingTopic)
    }

    @Test mutating func mdmPushesMustUseTheCertificatesOwnTopic() {
        let uid = "com.apple.mgmt.External.1234"
        h.auth = .certificate(ClientCertificateInfo(trusted: true, currentlyValid: true, bundleId: uid,
                                                    environments: [.production], topics: []))
        let mdm = [("apns-push-type", "mdm")]
        h.lookups.add(token: String(repeating: "9a", count: 32), DeviceTokenInfo(bundleId: uid, environment: .production))
        #expect(h.reason(push(token: String(repeating: "9a", count: 32), jwt: nil, topic: uid, headers: mdm,
                              body: #"{"mdm":"x"}"#)) == nil)
        #expect(h.reason(push(token: String(repeating: "9a", count: 32), jwt: nil, topic: "com.example.app", headers: mdm,
                              body: #"{"mdm":"x"}"#)) == .topicDisallowed)
    }

    @Test mutating func signatureIsVerifiedOncePerDistinctToken() throws {
        for _ in 0..<50 { #expect(h.reason(push(jwt: jwt)) == nil) }
        let other = Harness()
        other.lookups.add(key.record)
        other.lookups.add(token: appToken, DeviceTokenInfo(bundleId: "com.example.app", environment: .production))
        let shared = ProviderTokenVerifier()
        for _ in 0..<10 {
            var conn = ConnectionAuthState()
            let context = ValidationContext(environment: .production, auth: .token, now: testNow, policy: ValidationPolicy(),
                                            keys: other.lookups, tokens: other.lookups, verifier: shared)
            #expect((try? APNsValidator().validate(push(jwt: jwt), context: context, state: &conn).get()) != nil)
        }
        #expect(shared.hitsAndMisses.misses == 1)
        #expect(shared.hitsAndMisses.hits == 9)
    }
}
