import APNsProtocol
import Foundation
import H2Transport

/// The provider API on top of the HTTP/2 server: environment, faults, validation, rate limits, connection
/// behaviours, journal, and the answer.
///
/// Runs on the connection's event loop; everything it touches there is either loop-confined
/// (`APNsConnectionState`) or a `Mutex`-protected registry in `EmulatorServices`.
final class APNsHandler: H2ServerHandler {
    let services: EmulatorServices
    private let validator = APNsValidator()
    var verifier: ProviderTokenVerifier { services.verifier }
    let policy: ValidationPolicy
    private let behavior: ConnectionBehavior
    /// Whether the realism profile ever holds a connection at one stream.
    var behaviorHoldsOneStream: Bool { behavior.oneStreamUntilAuthenticated || behavior.throttleAfterRejection }
    private let environmentFromHostNames: Bool
    /// Headers on every response (the emulator version).
    let extraFields: H2HeaderList
    /// `services.metrics`, called through an unretained reference on every push: each access to the field
    /// retained and released it. Safe: `services` (held by this handler) holds its metrics for its whole life.
    private let metricsRef: Unmanaged<EmulatorMetrics>
    /// What the higher layers (the virtual devices' delivery queue) do with every accepted push.
    ///
    /// Closures over the extensions rather than the extensions themselves: calling one retains its context,
    /// an ordinary object, where calling an extension straight from an array retains the extension, and the
    /// device farm (weakly referenced by its timer, so it has a side table) takes the runtime's slow path for
    /// that: 0.7% of CPU per push.
    private let pushObservers: [@Sendable (AcceptedPush, Millis) -> Void]

    init(services: EmulatorServices, extensions: [any EmulatorExtension] = []) {
        self.services = services
        self.metricsRef = .passUnretained(services.metrics)
        self.policy = services.configuration.policy
        self.behavior = services.configuration.connectionBehavior
        self.environmentFromHostNames = services.configuration.environmentFromHostNames
        self.extraFields = H2HeaderList([H2Header(EmulatorVersion.headerName, EmulatorVersion.current)])
        self.pushObservers = extensions.map { ext in { push, now in ext.pushAccepted(push, now: now) } }
    }

    /// "One stream until authenticated" must hold from the very first SETTINGS frame, not from the second.
    func initialSettings(for connection: H2ServerConnection, default settings: H2Settings) -> H2Settings? {
        var s = settings
        if behavior.oneStreamUntilAuthenticated, connection.peerCertificateDER == nil {
            s.maxConcurrentStreams = 1
            return s
        }
        // A stream limit changed through the shaping API applies to new connections from their first SETTINGS.
        let limit = services.shaping.current.maxConcurrentStreams
        guard limit != settings.maxConcurrentStreams else { return nil }
        s.maxConcurrentStreams = limit
        return s
    }

    func connectionOpened(_ connection: H2ServerConnection) {
        let auth: ConnectionAuth = connection.peerCertificateDER.map {
            .certificate(.from(der: $0, trusted: connection.peerCertificateVerified, now: services.clock.now()))
        } ?? .token
        let now = services.clock.now()
        let (shaping, generation) = services.shaping.snapshot()
        let authName: String
        if case .certificate = auth { authName = "certificate" } else { authName = "token" }
        let stats = ConnectionStats(id: connection.id, remote: connection.remoteAddress.map { "\($0)" } ?? "",
                                    listener: connection.listener.name, auth: authName, openedAt: now)
        services.connectionStats.opened(stats)
        services.metrics.connectionOpened()
        let listenerEnvironment = APNsEnvironment(rawValue: connection.listener.name) ?? .production
        let state = APNsConnectionState(
            auth: auth, advertisedStreams: connection.settings.maxConcurrentStreams,
            listenerEnvironment: listenerEnvironment,
            shaping: shaping, shapingGeneration: generation, openedAt: now, stats: stats,
            validation: ValidationContext(environment: listenerEnvironment, auth: auth, now: now, policy: policy,
                                          keys: services.keys, tokens: services.tokens, verifier: verifier))
        connection.userInfo = state
        if behavior.oneStreamUntilAuthenticated, auth == .token {
            advertise(1, on: connection, state: state)
        }
    }

    func connectionClosed(_ connection: H2ServerConnection) {
        services.metrics.connectionClosed()
        services.connectionStats.closed(connection.id, at: services.clock.now())
    }

    func handleRequest(_ request: H2Request, connection: H2ServerConnection, responder: H2Responder) {
        // The connection's state, borrowed for the request: binding `userInfo` retained and released it per push.
        // Set by `connectionOpened` for every connection of this handler, and held by the connection meanwhile.
        guard let ref = connection.userInfoRef else {
            responder.reset(.internalError)
            return
        }
        ref._withUnsafeGuaranteedRef { info in
            handleRequest(request, connection: connection, responder: responder,
                          state: unsafeDowncast(info, to: APNsConnectionState.self))
        }
    }

    private func handleRequest(_ request: H2Request, connection: H2ServerConnection, responder: H2Responder,
                               state: APNsConnectionState) {
        // Times come from the socket read that brought this request (`EventLoop.readAt`): its latency counts
        // from when its bytes were read (time spent on requests ahead of it in the same read included, as a
        // sender sees it), and neither costs a clock read per request.
        // Read through the connection, not a local reference to its loop (a retain and a release per push).
        let started = connection.readAt
        let loopIndex = connection.loopIndex
        let now = services.now(readAtWallMillis: connection.readAtWallMillis)
        let inFlight = connection.openStreamCount
        assert(connection.isOnEventLoop, "a request handled off its connection's event loop")
        metricsRef._withUnsafeGuaranteedRef { $0.streamOpened(concurrentOnConnection: inFlight, loop: loopIndex) }
        state.stats.bump(state.stats.requests)
        state.stats.sawConcurrency(inFlight)
        refreshShaping(state, connection: connection)
        let environment = environmentFromHostNames
            ? EnvironmentResolver.environment(headers: request.headers, serverName: connection.serverName,
                                              listener: state.listenerEnvironment)
            : state.listenerEnvironment

        // Injected faults first: they stand in for APNs misbehaving whatever the request says.
        let isBroadcast = Self.isBroadcastPath(request.headers)
        let fault = services.faults.isEmpty ? nil : services.faults.take(
            token: DeviceToken.pathToken(in: request.headers), topic: Self.faultTopic(request, isBroadcast: isBroadcast),
            now: now).map(FaultHit.init)
        if let fault, case .resetStream = fault.action {
            journal(request, connection: connection, environment: environment, summary: RequestSummary(), status: 0,
                    reason: nil, timestamp: nil, apnsId: "", uniqueId: nil, started: started, fault: fault, now: now,
                    auth: state.auth, authRejection: nil)
            services.metrics.streamClosed(loop: loopIndex)
            responder.reset(.internalError)
            return
        }

        state.validation.environment = environment
        state.validation.now = now
        if isBroadcast {
            handleBroadcast(request, context: state.validation, connection: connection, state: state, fault: fault,
                            started: started, responder: responder)
            return
        }
        var outcome = validator.validate(request, inPlace: &state.validation, state: &state.authState)
        // Faults, the per-token rate limit and load shaping may answer in place of the outcome. Tested here and
        // applied out of line, so the common case (none of them) moves the outcome (a few hundred bytes) only
        // into the switch below, not through every step.
        if fault != nil || state.shaping.tokenRateLimit > 0 || state.shaping.shapesRequests {
            override(&outcome, fault: fault, state: state, now: now)
        }
        if state.authState.tokenUpdates != state.seenTokenUpdates {
            state.seenTokenUpdates = state.authState.tokenUpdates
            state.stats.bump(state.stats.tokenUpdates)
            state.stats.lastTokenUpdateAt.store(now, ordering: .relaxed)
            services.metrics.tokenRefreshed()
        }
        let pushType: PushType?
        let answeredReason: APNsReason?

        var response: H2Response
        let journaledAt: UInt64?
        switch consume outcome {
        case .success(let push):
            pushType = push.pushType
            answeredReason = nil
            let uniqueId = environment == .sandbox ? state.authState.ids.generate() : nil
            response = APNsResponseBuilder.success(apnsId: push.apnsId, uniqueId: uniqueId, extra: extraFields,
                                                   reusing: &state.successFields)
            journaledAt = journal(request, connection: connection, environment: environment, summary: push.summary, status: 200,
                    reason: nil, timestamp: nil, apnsId: push.apnsId, uniqueId: uniqueId, started: started,
                    fault: fault, now: now, auth: state.auth, authRejection: nil)
            accepted(connection: connection, state: state)
            for observe in pushObservers { observe(push, now) }
        case .failure(let rejection):
            pushType = rejection.summary.pushType
            answeredReason = rejection.reason
            response = APNsResponseBuilder.rejection(rejection.reason, timestamp: rejection.timestamp,
                                                     apnsId: rejection.apnsId, policy: policy, extra: extraFields)
            journaledAt = journal(request, connection: connection, environment: environment, summary: rejection.summary,
                    status: rejection.reason.status, reason: policy.wireString(for: rejection.reason),
                    timestamp: rejection.timestamp, apnsId: rejection.apnsId, uniqueId: nil, started: started,
                    fault: fault, now: now, auth: state.auth,
                    authRejection: Self.isAuthReason(rejection.reason) ? rejection.reason : nil)
            rejected(rejection.reason, connection: connection, state: state)
        }

        send(response, fault: fault, connection: connection, responder: responder,
             record: Answer(reason: answeredReason, pushType: pushType, environment: environment, started: started,
                            finished: journaledAt),
             state: state, now: now)
        // A 200's fields came out of the connection's list: back they go, for the next one (if a delayed answer
        // still holds them, the next write copies first).
        if answeredReason == nil { swap(&state.successFields, &response.fields) }
    }

    /// Lets an injected fault, then the per-token rate limit (429 TooManyRequests, only for pushes that would
    /// otherwise go through), then load shaping (a brownout or the per-connection rate limit) answer instead.
    @inline(never)
    private func override(_ outcome: inout Result<AcceptedPush, Rejection>, fault: FaultHit?,
                          state: APNsConnectionState, now: Millis) {
        if let fault { outcome = Self.applyFault(fault, to: outcome, now: now) }
        let tokenLimit = state.shaping.tokenRateLimit
        if tokenLimit > 0, case .success(let push) = outcome,
           services.tokens.recordPush(to: push.token, now: now, limit: tokenLimit, windowMillis: state.shaping.tokenRateWindowMs) {
            outcome = .failure(Rejection(reason: .tooManyRequests, apnsId: push.apnsId, summary: push.summary))
        }
        if state.shaping.shapesRequests, let reason = shapedRejection(state, now: now) {
            outcome = Self.replace(outcome, with: reason)
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

    /// What the metrics need of an answer.
    struct Answer {
        var reason: APNsReason?
        /// The success status when there is no reason (201 and 204 for channel management).
        var status = 200
        var pushType: PushType?
        var environment: APNsEnvironment
        var started: UInt64
        /// When the answer was decided, if the journal already read the clock for it (the latency of an answer
        /// sent at once is the same number: one clock read instead of two).
        var finished: UInt64? = nil
    }

    /// Answers, applying a fault's delay or connection-level effect and the shaping latency, and counts it.
    func send(_ response: H2Response, fault: FaultHit?, connection: H2ServerConnection, responder: H2Responder,
              record: Answer, state: APNsConnectionState, now: Millis) {
        if record.reason == nil { state.stats.bump(state.stats.accepted) } else { state.stats.bump(state.stats.rejected) }
        var delayMillis: Double = 0
        if state.shaping.latency != .none {
            // Clamped to the 10-minute limit the settings accept: a log-normal tail is unbounded.
            delayMillis = min(600_000, max(0, state.shaping.latency.sample(uniform01: state.nextUniform(), normal: state.nextNormal())))
        }
        if fault == nil && delayMillis == 0 {
            // The common path: answered now, no closure to allocate.
            metricsRef._withUnsafeGuaranteedRef { Self.answer(response, record: record, metrics: $0, responder: responder) }
        } else {
            // Sent later: its latency is read when it goes out.
            var later = record
            later.finished = nil
            let metrics = services.metrics
            let respond: @Sendable () -> Void = { [later] in Self.answer(response, record: later, metrics: metrics, responder: responder) }
            switch fault?.action {
            case .delay(let ms):
                responder.eventLoop.schedule(after: .milliseconds(ms) + .microseconds(Int64(delayMillis * 1000)), respond)
            case .goAway(let reason):
                respond()
                connection.sendGoAway(debugData: Self.goAwayPayload(reason))
            case .shutdown:
                respond()
                connection.sendGoAway(debugData: APNsResponseBuilder.goAwayPayload(.shutdown, policy: policy))
            default:
                if delayMillis > 0 {
                    responder.eventLoop.schedule(after: .microseconds(Int64(delayMillis * 1000)), respond)
                } else {
                    respond()
                }
            }
        }
        recycleIfDue(state, connection: connection, now: now)
    }

    /// Counts the answer (its time includes any shaping delay) and sends it. Runs on the connection's event
    /// loop (a delayed answer is scheduled there), so it counts in that loop's metrics row.
    @inline(__always)
    static func answer(_ response: H2Response, record: Answer, metrics: EmulatorMetrics, responder: H2Responder) {
        let loopIndex = responder.loopIndex
        assert(responder.isOnEventLoop, "an answer counted off its connection's event loop")
        metrics.response(reason: record.reason, status: record.status, pushType: record.pushType, environment: record.environment,
                         micros: ((record.finished ?? monotonicNanoseconds()) &- record.started) / 1000, loop: loopIndex)
        metrics.streamClosed(loop: loopIndex)
        responder.respond(response)
    }

    // MARK: Connection behaviours

    func accepted(connection: H2ServerConnection, state: APNsConnectionState) {
        let maxStreams = state.shaping.maxConcurrentStreams
        if state.advertisedStreams != maxStreams && (behavior.throttleAfterRejection || behavior.oneStreamUntilAuthenticated) {
            advertise(maxStreams, on: connection, state: state)
        }
    }

    func rejected(_ reason: APNsReason, connection: H2ServerConnection, state: APNsConnectionState) {
        // 410 is not an error condition for APNs (the token is just gone).
        guard reason.status != 410 else {
            liftAuthenticationLimit(connection: connection, state: state)
            return
        }
        if behavior.throttleAfterRejection {
            advertise(1, on: connection, state: state)
        } else {
            liftAuthenticationLimit(connection: connection, state: state)
        }
        if behavior.goAwayAfterErrors > 0 {
            state.errorScore += reason == .badDeviceToken ? 2 : 1
            if state.errorScore >= behavior.goAwayAfterErrors {
                connection.sendGoAway(debugData: APNsResponseBuilder.goAwayPayload(reason, policy: policy))
            }
        }
    }

    /// "One stream until a valid token" ends with the first valid token, even when that push is refused for
    /// another reason (e.g. BadDeviceToken).
    private func liftAuthenticationLimit(connection: H2ServerConnection, state: APNsConnectionState) {
        let maxStreams = state.shaping.maxConcurrentStreams
        if behavior.oneStreamUntilAuthenticated && state.authState.authenticated && state.advertisedStreams != maxStreams {
            advertise(maxStreams, on: connection, state: state)
        }
    }

    func advertise(_ streams: Int, on connection: H2ServerConnection, state: APNsConnectionState) {
        guard state.advertisedStreams != streams else { return }
        state.advertisedStreams = streams
        var settings = connection.settings
        settings.maxConcurrentStreams = streams
        connection.updateSettings(settings)
    }

    // MARK: Journal

    /// Records the request when the journal is on; returns the time it read for the entry's duration.
    @discardableResult
    func journal(_ request: H2Request, connection: H2ServerConnection, environment: APNsEnvironment,
                 summary: RequestSummary, status: Int, reason: String?, timestamp: Int64?, apnsId: String,
                 uniqueId: String?, started: UInt64, fault: FaultHit?, now: Millis, auth: ConnectionAuth,
                 authRejection: APNsReason?) -> UInt64? {
        guard services.journal.isEnabled else { return nil }
        let authMode: JournalRecord.AuthMode
        switch auth {
        case .certificate: authMode = .certificate
        // A parsed provider token (its key id) implies the header; only otherwise is it looked for.
        case .token: authMode = summary.keyId != nil || request.headers.firstIndex(of: "authorization") != nil ? .token : .none
        }
        let finished = monotonicNanoseconds()
        services.journal.append(JournalRecord(
            receivedAt: now, connectionId: connection.id, environment: environment, authMode: authMode,
            authRejection: authRejection, status: status, reason: reason, timestamp: timestamp, apnsId: apnsId,
            apnsUniqueId: uniqueId, durationMicros: Int64((finished &- started) / 1000),
            faultId: fault?.id), request: request, summary: summary)
        return finished
    }

    /// The topic a fault rule matches: `apns-topic`, or for broadcasts and channels the app named in the path.
    static func faultTopic(_ request: H2Request, isBroadcast: Bool) -> String? {
        if isBroadcast { return request.path.flatMap(BroadcastOperation.bundleId(inPath:)) }
        return request.headers.firstIndex(of: "apns-topic").map { request.headers.value(at: $0) }
    }

    /// `{"reason": …}` for a fault's GOAWAY; the reason comes from the control API, so it is JSON-escaped.
    static func goAwayPayload(_ reason: String) -> [UInt8] {
        var out = Array(#"{"reason":""#.utf8)
        for b in reason.utf8 {
            switch b {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), b]
            case 0..<0x20: out += Array(String(format: "\\u%04x", b).utf8)
            default: out.append(b)
            }
        }
        return out + Array(#""}"#.utf8)
    }

    /// Broadcast and channel paths start `/1/` or `/4/`; checked on bytes (this runs for every push).
    static func isBroadcastPath(_ headers: H2HeaderList) -> Bool {
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
