import APNsProtocol
import H2Transport
import OpenSSLSupport
import StateStore
import Testing

@testable import APNsEmulator

/// The pipeline decides a request with no socket: a request value and a connection state in, a decision out.
struct PipelineFixture {
    static let start: Millis = 1_767_225_600_000
    let services: EmulatorServices
    let pipeline: PushPipeline
    let jwt: String
    let token: String

    init(configure: (inout EmulatorConfiguration) -> Void = { _ in }) throws {
        var configuration = EmulatorConfiguration()
        configuration.registerSampleKey = false
        configuration.ephemeral = true
        configure(&configuration)
        services = try EmulatorServices(configuration: configuration, clock: ManualClock(start: Self.start),
                                        persistence: NoPersistence())
        pipeline = PushPipeline(configuration: configuration, tokens: services.tokens, channels: services.channels,
                                shaping: services.shaping)
        let key = try PrivateKey.generateP256()
        try services.keys.register(ProviderKeyRecord(keyId: "PIPEKEY001", teamId: "PIPETEAM01", kind: .team,
                                                     publicKeyPem: key.publicKeyPEM, createdAt: Self.start))
        jwt = try ProviderTokenSigner.makeToken(privateKey: key, keyId: "PIPEKEY001", teamId: "PIPETEAM01",
                                                issuedAt: Self.start / 1000)
        token = try services.tokens.issue(bundleId: "com.example.app", environment: .production, now: Self.start).token
    }

    /// A token-authenticated connection on the production listener.
    func connection(advertising streams: Int = 1000) -> APNsConnectionState {
        let (shaping, generation) = services.shaping.snapshot()
        return APNsConnectionState(
            auth: .token, advertisedStreams: streams, listenerEnvironment: .production, serverName: nil, shaping: shaping,
            shapingGeneration: generation, openedAt: Self.start,
            stats: ConnectionStats(id: 1, remote: "", listener: "production", auth: "token", openedAt: Self.start),
            validation: ValidationContext(environment: .production, auth: .token, now: Self.start,
                                          policy: services.configuration.policy, keys: services.keys,
                                          tokens: services.tokens, verifier: services.verifier),
            responses: APNsResponseWriter(extra: H2HeaderList()))
    }

    func push(to token: String? = nil, jwt: String? = nil, path: String? = nil) -> H2Request {
        H2Request(authority: "api.push.apple.com", path: path ?? "/3/device/\(token ?? self.token)",
                  headers: [H2Header("authorization", "bearer \(jwt ?? self.jwt)"), H2Header("apns-topic", "com.example.app"),
                            H2Header("apns-push-type", "alert")],
                  body: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
    }

    func decide(_ request: H2Request, _ state: APNsConnectionState, fault: FaultAction? = nil) -> PushDecision {
        pipeline.decide(request,
                        fault: fault.map { FaultHit(FaultRule(id: "f1", action: $0, createdAt: Self.start)) },
                        state: state, now: Self.start)
    }
}

@Suite("PushPipeline: a request in, a decision out")
struct PushPipelineTests {
    @Test func anAcceptedPushIsA200WithItsRecordAndNoEffects() throws {
        let f = try PipelineFixture()
        let decision = f.decide(f.push(), f.connection())
        guard case .accepted(let push, let uniqueId) = decision.answer else {
            Issue.record("not accepted: \(decision.answer)")
            return
        }
        #expect(push.token == f.token && uniqueId == nil && decision.environment == .production)
        #expect(decision.record.status == 200 && decision.record.reason == nil && decision.record.id == push.apnsId)
        #expect(decision.record.authMode == .token && decision.record.summary == nil && decision.record.faultId == nil)
        #expect(decision.effects.delay == .zero && decision.effects.goAwayBeforeAnswer == nil)
        #expect(decision.effects.goAwayAfterAnswer == nil && decision.effects.maxConcurrentStreams == nil)
    }

    @Test func aRejectionCarriesApplesAnswerAndTheSummaryValidationRead() throws {
        let f = try PipelineFixture()
        let decision = f.decide(f.push(to: String(repeating: "ab", count: 32)), f.connection())
        guard case .answer(let answer) = decision.answer else {
            Issue.record("not answered: \(decision.answer)")
            return
        }
        #expect(answer.status == 400 && answer.body == Array(#"{"reason":"BadDeviceToken"}"#.utf8))
        #expect(decision.record.reason == .badDeviceToken && decision.record.summary?.summary.topic == "com.example.app")
        #expect(decision.record.authRejection == nil)
    }

    @Test func aResetFaultAnswersNothingAndIsRecordedWithStatusZero() throws {
        let f = try PipelineFixture()
        let state = f.connection()
        let decision = f.decide(f.push(), state, fault: .resetStream)
        guard case .reset = decision.answer else {
            Issue.record("not a reset: \(decision.answer)")
            return
        }
        #expect(decision.record.status == 0 && decision.record.id.isEmpty && decision.record.faultId == "f1")
        #expect(state.requestCount == 0, "a reset stream is not a request the connection carried")
    }

    /// A GOAWAY fault answers at once, whatever the shaping latency, and the request still counts toward recycling.
    @Test func aGoAwayFaultAnswersAtOnceThenClosesAndCountsTowardRecycling() throws {
        let f = try PipelineFixture { $0.shaping = ShapingSettings(latency: .fixed(ms: 50), goAwayAfterRequests: 1) }
        let state = f.connection()
        let decision = f.decide(f.push(), state, fault: FaultAction.goAway(reason: "Maintenance"))
        #expect(decision.effects.delay == .zero)
        #expect(decision.effects.goAwayAfterAnswer == Array(#"{"reason":"Maintenance"}"#.utf8))
        #expect(state.requestCount == 1 && state.recycled)
        let later = f.decide(f.push(), state)
        #expect(later.effects.delay == .milliseconds(50) && later.effects.goAwayAfterAnswer == nil)
    }

    @Test func throttleAfterRejectionHoldsOneStreamUntilTheNextAcceptedPush() throws {
        let f = try PipelineFixture { $0.connectionBehavior.throttleAfterRejection = true }
        let state = f.connection()
        let refused = f.decide(f.push(to: String(repeating: "cd", count: 32)), state)
        #expect(refused.effects.maxConcurrentStreams == 1)
        let again = f.decide(f.push(to: String(repeating: "cd", count: 32)), state)
        #expect(again.effects.maxConcurrentStreams == nil, "already at one stream: no new SETTINGS")
        let accepted = f.decide(f.push(), state)
        #expect(accepted.effects.maxConcurrentStreams == 1000)
    }

    @Test func aNewProviderTokenIsCountedOnAChannelRequestToo() throws {
        let f = try PipelineFixture()
        let state = f.connection()
        let list = H2Request(method: "GET", authority: "api-manage-broadcast.push.apple.com",
                             path: "/1/apps/com.example.app/all-channels",
                             headers: [H2Header("authorization", "bearer \(f.jwt)")])
        let decision = f.decide(list, state)
        #expect(decision.record.status == 200, "\(decision.answer)")
        #expect(state.authState.tokenUpdates == 1)
        #expect(decision.record.pushType == .liveactivity)
    }
}
