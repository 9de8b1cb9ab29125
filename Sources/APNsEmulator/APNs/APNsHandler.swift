import APNsProtocol
import H2Transport

/// The provider API on the HTTP/2 server: per request it takes a matching fault, asks the pipeline for a
/// decision, journals it once, and carries it out (SETTINGS, GOAWAY, the answer now or later, the metrics,
/// the observers of accepted pushes).
///
/// Runs on the connection's event loop; what it touches there is the connection's `APNsConnectionState` or a
/// `Mutex`-protected registry in `EmulatorServices`.
package final class APNsHandler: H2ServerHandler {
    let services: EmulatorServices
    private let metrics: EmulatorMetrics
    private let pipeline: PushPipeline
    private let policy: ValidationPolicy
    private let oneStreamUntilAuthenticated: Bool
    /// Headers on every response (the emulator version).
    private let extraFields: H2HeaderList
    /// What the higher layers (the virtual devices) do with every accepted push.
    private let observers: [any AcceptedPushObserver]
    /// With `--cluster-journal durable`: accepted answers wait here for their copy into the cluster journal.
    private let gate: JournalCopyGate?

    package init(services: EmulatorServices, observers: [any AcceptedPushObserver] = []) {
        self.services = services
        self.metrics = services.metrics
        self.pipeline = PushPipeline(configuration: services.configuration, tokens: services.tokens,
                                     channels: services.channels, shaping: services.shaping)
        self.policy = services.configuration.policy
        self.oneStreamUntilAuthenticated = services.configuration.connectionBehavior.oneStreamUntilAuthenticated
        self.extraFields = H2HeaderList([H2Header(EmulatorVersion.headerName, EmulatorVersion.current)])
        self.observers = observers
        self.gate = services.replication?.gate
    }

    /// "One stream until authenticated" must hold from the very first SETTINGS frame, not from the second.
    package func initialSettings(for connection: H2ServerConnection, default settings: H2Settings) -> H2Settings? {
        var s = settings
        if oneStreamUntilAuthenticated, connection.peerCertificateDER == nil {
            s.maxConcurrentStreams = 1
            return s
        }
        // A stream limit changed through the shaping API applies to new connections from their first SETTINGS.
        let limit = services.shaping.current.maxConcurrentStreams
        guard limit != settings.maxConcurrentStreams else { return nil }
        s.maxConcurrentStreams = limit
        return s
    }

    package func connectionOpened(_ connection: H2ServerConnection) -> APNsConnectionState {
        let now = services.clock.now()
        let auth: ConnectionAuth = connection.peerCertificateDER.map {
            .certificate(.from(der: $0, trusted: connection.peerCertificateVerified, now: now))
        } ?? .token
        let (shaping, generation) = services.shaping.snapshot()
        let authName: String
        if case .certificate = auth { authName = "certificate" } else { authName = "token" }
        let stats = ConnectionStats(id: connection.id, remote: connection.remoteAddress.map { "\($0)" } ?? "",
                                    listener: connection.listener.name, auth: authName, openedAt: now)
        services.connectionStats.opened(stats)
        metrics.connectionOpened()
        let listenerEnvironment = APNsEnvironment(rawValue: connection.listener.name) ?? .production
        let state = APNsConnectionState(
            auth: auth, advertisedStreams: connection.settings.maxConcurrentStreams,
            listenerEnvironment: listenerEnvironment, serverName: connection.serverName,
            shaping: shaping, shapingGeneration: generation, openedAt: now, stats: stats,
            validation: ValidationContext(environment: listenerEnvironment, auth: auth, now: now, policy: policy,
                                          keys: services.keys, tokens: services.tokens, verifier: services.verifier),
            responses: APNsResponseWriter(extra: extraFields))
        if oneStreamUntilAuthenticated, auth == .token {
            state.advertisedStreams = 1
            advertise(1, on: connection)
        }
        return state
    }

    package func connectionClosed(_ connection: H2ServerConnection, state: APNsConnectionState) {
        metrics.connectionClosed()
        services.connectionStats.closed(connection.id, at: services.clock.now())
    }

    package func handleRequest(_ request: H2Request, state: APNsConnectionState, context: borrowing H2RequestContext) {
        let connection = context.connection
        let loopIndex = context.loopIndex
        let now = services.now(readAtWallMillis: context.readAtWallMillis)
        metrics.streamOpened(concurrentOnConnection: context.openStreams, loop: loopIndex)
        state.stats.bump(state.stats.requests)
        state.stats.sawConcurrency(context.openStreams)

        // Injected faults first: they stand in for APNs misbehaving whatever the request says.
        let fault = services.faults.isEmpty ? nil : services.faults.take(
            token: DeviceToken.pathToken(in: request.headers), topic: PushPipeline.faultTopic(request), now: now)
            .map(FaultHit.init)
        let decision = pipeline.decide(request, fault: fault, state: state, now: now)
        countTokenUpdates(state, now: now)
        let journaledAt = journal(decision, request: request, connectionId: connection.id, started: context.readAt, now: now)

        if let streams = decision.effects.maxConcurrentStreams { advertise(streams, on: connection) }
        if let goAway = decision.effects.goAwayBeforeAnswer { connection.sendGoAway(debugData: goAway) }
        var response: H2Response
        switch decision.answer {
        case .reset:
            metrics.streamClosed(loop: loopIndex)
            context.responder.reset(.internalError)
            return
        case .accepted(let push, let uniqueId):
            response = state.responses.success(apnsId: push.apnsId, uniqueId: uniqueId)
            for observer in observers { observer.pushAccepted(push, now: now, readAt: context.readAt) }
        case .answer(let answer):
            response = state.responses.response(answer)
        }
        if decision.record.reason == nil { state.stats.bump(state.stats.accepted) } else { state.stats.bump(state.stats.rejected) }
        let counted = AnswerMetrics(reason: decision.record.reason, status: decision.record.status,
                                    pushType: decision.record.pushType, environment: decision.environment,
                                    started: context.readAt)
        let responder = context.responder
        if let gate, case .accepted = decision.answer, let journaledAt, journaledAt.id > 0 {
            // Its latency includes the wait for the copy (and any delay, which starts once the copy is in).
            let metrics = self.metrics
            let delay = decision.effects.delay
            gate.hold(journaledAt.id, loopIndex: loopIndex, on: responder.eventLoop) { [response] in
                if delay == .zero {
                    Self.answer(response, counted, finished: nil, metrics: metrics, responder: responder)
                } else {
                    responder.eventLoop.schedule(after: delay) {
                        Self.answer(response, counted, finished: nil, metrics: metrics, responder: responder)
                    }
                }
            }
        } else if decision.effects.delay == .zero {
            Self.answer(response, counted, finished: journaledAt?.finished, metrics: metrics, responder: responder)
        } else {
            // Sent later: its latency is read when it goes out.
            let metrics = self.metrics
            responder.eventLoop.schedule(after: decision.effects.delay) { [response] in
                Self.answer(response, counted, finished: nil, metrics: metrics, responder: responder)
            }
        }
        if let goAway = decision.effects.goAwayAfterAnswer { connection.sendGoAway(debugData: goAway) }
        if case .accepted = decision.answer { state.responses.reclaim(&response) }
    }

    /// What the metrics count of an answer.
    struct AnswerMetrics: Sendable {
        var reason: APNsReason?
        var status: Int
        var pushType: PushType?
        var environment: APNsEnvironment
        /// When the request's bytes were read (monotonic ns).
        var started: UInt64
    }

    /// Counts the answer (its time includes any delay) and sends it, on the connection's event loop.
    /// - Parameter finished: when the answer was decided, if the journal read the clock for it already.
    static func answer(_ response: H2Response, _ counted: AnswerMetrics, finished: UInt64?, metrics: EmulatorMetrics,
                       responder: H2Responder) {
        let loopIndex = responder.loopIndex
        assert(responder.isOnEventLoop, "an answer counted off its connection's event loop")
        metrics.response(reason: counted.reason, status: counted.status, pushType: counted.pushType,
                         environment: counted.environment,
                         micros: ((finished ?? monotonicNanoseconds()) &- counted.started) / 1000, loop: loopIndex)
        metrics.streamClosed(loop: loopIndex)
        responder.respond(response)
    }

    private func advertise(_ streams: Int, on connection: H2ServerConnection) {
        guard connection.settings.maxConcurrentStreams != streams else { return }
        var settings = connection.settings
        settings.maxConcurrentStreams = streams
        connection.updateSettings(settings)
    }

    /// A new provider token on the connection counts as a token refresh.
    private func countTokenUpdates(_ state: APNsConnectionState, now: Millis) {
        guard state.authState.tokenUpdates != state.seenTokenUpdates else { return }
        state.seenTokenUpdates = state.authState.tokenUpdates
        state.stats.bump(state.stats.tokenUpdates)
        state.stats.lastTokenUpdateAt.store(now, ordering: .relaxed)
        metrics.tokenRefreshed()
    }

    /// Records the decision when the journal is on; returns the time it read for the entry's duration, and its id.
    /// Reads the summary only once the journal is on, so a push with the journal off never copies it.
    private func journal(_ decision: borrowing PushDecision, request: H2Request,
                         connectionId: UInt64, started: UInt64, now: Millis) -> (finished: UInt64, id: Int64)? {
        guard services.journal.isEnabled else { return nil }
        if case .accepted(let push, _) = decision.answer {
            return journal(decision, summary: push.summary, request: request, connectionId: connectionId, started: started, now: now)
        }
        return journal(decision, summary: decision.record.summary?.summary ?? RequestSummary(), request: request,
                       connectionId: connectionId, started: started, now: now)
    }

    private func journal(_ decision: borrowing PushDecision, summary: borrowing RequestSummary, request: H2Request,
                         connectionId: UInt64, started: UInt64, now: Millis) -> (finished: UInt64, id: Int64) {
        let finished = monotonicNanoseconds()
        let id = services.journal.append(JournalRecord(
            receivedAt: now, connectionId: connectionId, environment: decision.environment,
            authMode: decision.record.authMode, authRejection: decision.record.authRejection,
            status: decision.record.status, reason: decision.record.reason.map(policy.wireString(for:)),
            timestamp: decision.record.timestamp, apnsId: decision.record.id, apnsUniqueId: decision.record.uniqueId,
            durationMicros: Int64((finished &- started) / 1000), faultId: decision.record.faultId), request: request,
            summary: summary)
        return (finished, id)
    }
}
