import APNsProtocol
import WireBytes

/// Decides a provider-API request: environment, injected fault, validation, rate limits, load shaping and the
/// connection rules, in that order, into a `PushDecision`. No transport: the handler carries the decision out.
///
/// It reads and updates the connection's `APNsConnectionState` and reads the registries it is given (the
/// per-token rate limit and the channel registry change state there, as APNs' own would).
struct PushPipeline: Sendable {
    let policy: ValidationPolicy
    let behavior: ConnectionBehavior
    /// Whether an Apple host named by the request or SNI picks the environment (else the listener's).
    let environmentFromHostNames: Bool
    let tokens: TokenRegistry
    let channels: ChannelRegistry
    let shaping: ShapingStore
    private let validator = APNsValidator()

    init(configuration: EmulatorConfiguration, tokens: TokenRegistry, channels: ChannelRegistry, shaping: ShapingStore) {
        self.policy = configuration.policy
        self.behavior = configuration.connectionBehavior
        self.environmentFromHostNames = configuration.environmentFromHostNames
        self.tokens = tokens
        self.channels = channels
        self.shaping = shaping
    }

    /// The decision for `request` on the connection whose state is `state`.
    /// - Parameters:
    ///   - fault: the fault rule that matched the request, already counted as hit.
    ///   - now: the emulator's clock (ms since the epoch).
    func decide<Request: RequestMessage>(_ request: Request, fault: FaultHit?,
                                         state: APNsConnectionState, now: Millis) -> PushDecision {
        let advertisedBefore = state.advertisedStreams
        refreshShaping(state)
        let environment = environmentFromHostNames
            ? EnvironmentResolver.environment(headers: request.headers, serverName: state.serverName,
                                              listener: state.listenerEnvironment)
            : state.listenerEnvironment
        if let fault, case .resetStream = fault.action {
            var decision = PushDecision(
                answer: .reset, environment: environment,
                record: .init(status: 0, id: "", summary: nil, authMode: authMode(request, RequestSummary(), state),
                              faultId: fault.id))
            if state.advertisedStreams != advertisedBefore { decision.effects.maxConcurrentStreams = state.advertisedStreams }
            return decision
        }
        state.validation.environment = environment
        state.validation.now = now
        var decision = Self.isBroadcastPath(request.headers)
            ? decideBroadcast(request, fault: fault, state: state, now: now)
            : decidePush(request, fault: fault, state: state, now: now)
        finish(&decision, fault: fault, state: state, advertisedBefore: advertisedBefore, now: now)
        return decision
    }

    /// The effects every answered request may have: its delay, a GOAWAY after it, new SETTINGS.
    private func finish(_ decision: inout PushDecision, fault: FaultHit?, state: APNsConnectionState,
                        advertisedBefore: Int, now: Millis) {
        decision.effects.delay = delay(fault: fault, state: state)
        // Counted whatever the fault: a recycling GOAWAY that a fault's GOAWAY stands in for is still due.
        let recycle = recycleIfDue(state, now: now)
        decision.effects.goAwayAfterAnswer = faultGoAway(fault) ?? recycle
        if state.advertisedStreams != advertisedBefore { decision.effects.maxConcurrentStreams = state.advertisedStreams }
    }

    private func decidePush<Request: RequestMessage>(_ request: Request, fault: FaultHit?, state: APNsConnectionState,
                                                     now: Millis) -> PushDecision {
        var outcome = validator.validate(request, inPlace: &state.validation, state: &state.authState)
        if let fault { outcome = Self.applyFault(fault, to: outcome, now: now) }
        let tokenLimit = state.shaping.tokenRateLimit
        if tokenLimit > 0, case .success(let push) = outcome,
           tokens.recordPush(to: push.token, now: now, limit: tokenLimit, windowMillis: state.shaping.tokenRateWindowMs) {
            outcome = .failure(Rejection(reason: .tooManyRequests, apnsId: push.apnsId, summary: push.summary))
        }
        if state.shaping.shapesRequests, let reason = shapedRejection(state, now: now) {
            outcome = Self.replace(outcome, with: reason)
        }
        let environment = state.validation.environment
        switch consume outcome {
        case .success(let push):
            let uniqueId = environment == .sandbox ? state.authState.ids.generate() : nil
            accepted(state)
            return PushDecision(
                answer: .accepted(push, uniqueId: uniqueId), environment: environment,
                record: .init(status: 200, id: push.apnsId, uniqueId: uniqueId, summary: nil,
                              pushType: push.pushType, authMode: authMode(request, push.summary, state),
                              faultId: fault?.id))
        case .failure(let rejection):
            var decision = PushDecision(
                answer: .answer(APNsAnswer.rejection(rejection.reason, timestamp: rejection.timestamp,
                                                     id: rejection.apnsId, policy: policy)),
                environment: environment, record: rejectionRecord(rejection, request, state, fault: fault))
            decision.effects.goAwayBeforeAnswer = rejected(rejection.reason, state)
            return decision
        }
    }

    /// The journal's record of a rejection.
    func rejectionRecord<Request: RequestMessage>(_ rejection: Rejection, _ request: Request,
                                                  _ state: APNsConnectionState, fault: FaultHit?,
                                                  pushType: PushType? = nil) -> PushDecision.Record {
        PushDecision.Record(
            status: rejection.reason.status, reason: rejection.reason, timestamp: rejection.timestamp,
            id: rejection.apnsId, summary: .init(rejection.summary), pushType: pushType ?? rejection.summary.pushType,
            authMode: authMode(request, rejection.summary, state),
            authRejection: Self.isAuthReason(rejection.reason) ? rejection.reason : nil, faultId: fault?.id)
    }

    /// How the request authenticated, for the journal: a parsed provider token (its key id) implies the
    /// header; only otherwise is the header looked for.
    func authMode<Request: RequestMessage>(_ request: Request, _ summary: RequestSummary,
                                           _ state: APNsConnectionState) -> JournalRecord.AuthMode {
        switch state.auth {
        case .certificate: return .certificate
        case .token:
            return summary.keyId != nil || request.headers.firstIndex(of: "authorization") != nil ? .token : .none
        }
    }

    /// A fault that answers in APNs' place (a reason, or 503 Shutdown) replaces the validation outcome of a
    /// device push or a broadcast alike; 410 reasons get "now" as their timestamp.
    static func applyFault<T: ValidatedRequest>(_ fault: FaultHit?, to outcome: Result<T, Rejection>,
                                               now: Millis) -> Result<T, Rejection> {
        let reason: APNsReason
        switch fault?.action {
        case .reason(let text)?: reason = APNsReason(rawValue: text) ?? .internalServerError
        case .shutdown?: reason = .shutdown
        default: return outcome
        }
        let (summary, id): (RequestSummary, String)
        switch outcome {
        case .success(let accepted): (summary, id) = (accepted.summary, accepted.responseId)
        case .failure(let rejection): (summary, id) = (rejection.summary, rejection.apnsId)
        }
        return .failure(Rejection(reason: reason, timestamp: reason.carriesTimestamp ? now : nil, apnsId: id, summary: summary))
    }

    /// The outcome answered with `reason` instead (keeping the request's summary and apns-id).
    static func replace(_ outcome: Result<AcceptedPush, Rejection>, with reason: APNsReason) -> Result<AcceptedPush, Rejection> {
        switch outcome {
        case .success(let push): return .failure(Rejection(reason: reason, apnsId: push.apnsId, summary: push.summary))
        case .failure(let r): return .failure(Rejection(reason: reason, apnsId: r.apnsId, summary: r.summary))
        }
    }

    /// The GOAWAY a fault sends once its answer is on its way.
    private func faultGoAway(_ fault: FaultHit?) -> [UInt8]? {
        switch fault?.action {
        case .goAway(let reason)?: return Self.goAwayPayload(reason)
        case .shutdown?: return APNsAnswer.goAwayPayload(.shutdown, policy: policy)
        default: return nil
        }
    }

    /// `{"reason": …}` for a fault's GOAWAY; the reason comes from the control API, so it is JSON-escaped.
    static func goAwayPayload(_ reason: String) -> [UInt8] {
        var w = CompactJSONWriter()
        w.beginObject()
        w.field("reason", reason)
        w.endObject()
        return w.bytes
    }

    /// The topic a fault rule matches: `apns-topic`, or for broadcasts and channels the app named in the path.
    static func faultTopic<Request: RequestMessage>(_ request: Request) -> String? {
        if isBroadcastPath(request.headers) { return request.path.flatMap(BroadcastOperation.bundleId(inPath:)) }
        return request.headers.firstIndex(of: "apns-topic").map { request.headers.value(at: $0) }
    }

    /// Broadcast and channel paths start `/1/` or `/4/`.
    static func isBroadcastPath(_ headers: borrowing HeaderFields) -> Bool {
        guard let i = headers.pathIndex else { return false }
        return headers.withValue(at: i) { p in
            p.count > 3 && p[0] == UInt8(ascii: "/") && (p[1] == UInt8(ascii: "1") || p[1] == UInt8(ascii: "4"))
                && p[2] == UInt8(ascii: "/")
        }
    }

    static func isAuthReason(_ reason: APNsReason) -> Bool {
        switch reason {
        case .missingProviderToken, .invalidProviderToken, .expiredProviderToken, .tooManyProviderTokenUpdates,
             .unrelatedKeyIdInToken, .badEnvironmentKeyIdInToken, .badCertificate, .badCertificateEnvironment:
            return true
        default:
            return false
        }
    }
}
