import APNsProtocol

/// The connection-level behaviours around an answer: the realism rules on MAX_CONCURRENT_STREAMS, GOAWAY after
/// errors, load shaping (stream limit, brownouts, rate limits, latency) and connection recycling. Each updates
/// the connection's state; what the connection must send comes back as values.
extension PushPipeline {
    /// Whether the realism profile ever holds a connection at one stream.
    var behaviorHoldsOneStream: Bool { behavior.oneStreamUntilAuthenticated || behavior.throttleAfterRejection }

    /// An accepted request lifts a realism rule's hold on the stream limit.
    func accepted(_ state: APNsConnectionState) {
        let maxStreams = state.shaping.maxConcurrentStreams
        if state.advertisedStreams != maxStreams && behaviorHoldsOneStream {
            state.advertisedStreams = maxStreams
        }
    }

    /// Applies the rejection rules; returns the GOAWAY to send first when the connection reached its error limit.
    func rejected(_ reason: APNsReason, _ state: APNsConnectionState) -> [UInt8]? {
        // 410 is not an error condition for APNs (the token is just gone).
        guard reason.status != 410 else {
            liftAuthenticationLimit(state)
            return nil
        }
        if behavior.throttleAfterRejection {
            state.advertisedStreams = 1
        } else {
            liftAuthenticationLimit(state)
        }
        guard behavior.goAwayAfterErrors > 0 else { return nil }
        state.errorScore += reason == .badDeviceToken ? 2 : 1
        guard state.errorScore >= behavior.goAwayAfterErrors else { return nil }
        return APNsAnswer.goAwayPayload(reason, policy: policy)
    }

    /// "One stream until a valid token" ends with the first valid token, even when that push is refused for
    /// another reason (e.g. BadDeviceToken).
    private func liftAuthenticationLimit(_ state: APNsConnectionState) {
        if behavior.oneStreamUntilAuthenticated && state.authState.authenticated {
            state.advertisedStreams = state.shaping.maxConcurrentStreams
        }
    }

    /// Picks up changed shaping settings (one atomic load when nothing changed); a new stream limit applies at
    /// once unless a realism rule holds the connection at one stream (the rule lifts it to the new limit later).
    func refreshShaping(_ state: APNsConnectionState) {
        guard shaping.generation != state.shapingGeneration else { return }
        (state.shaping, state.shapingGeneration) = shaping.snapshot()
        let heldByRealism = behaviorHoldsOneStream && state.advertisedStreams == 1
        if !heldByRealism { state.advertisedStreams = state.shaping.maxConcurrentStreams }
    }

    /// A brownout draw or the per-connection rate limit, when either answers this request.
    func shapedRejection(_ state: APNsConnectionState, now: Millis) -> APNsReason? {
        let s = state.shaping
        if s.brownoutShare > 0 && state.random.nextUniform() < s.brownoutShare {
            return s.brownoutStatus == 500 ? .internalServerError : .serviceUnavailable
        }
        if s.connectionRateLimit > 0 {
            if now - state.windowStart >= 1000 {
                state.windowStart = now
                state.windowCount = 0
            }
            state.windowCount += 1
            if state.windowCount > s.connectionRateLimit { return .tooManyRequests }
        }
        return nil
    }

    /// An injected delay plus the shaping latency (clamped to the 10 minutes the settings accept: a log-normal
    /// tail is unbounded). A fault that closes the connection (GOAWAY, shutdown) answers at once, then closes.
    func delay(fault: FaultHit?, state: APNsConnectionState) -> Duration {
        var micros: Int64 = 0
        switch fault?.action {
        case .delay(let ms)?: micros = Int64(ms) * 1000
        case .goAway?, .shutdown?: return .zero
        default: break
        }
        if state.shaping.latency != .none {
            let uniform = state.random.nextUniform(), normal = state.random.nextNormal()
            let sampled = min(600_000, max(0, state.shaping.latency.sample(uniform01: uniform, normal: normal)))
            micros += Int64(sampled * 1000)
        }
        return .microseconds(micros)
    }

    /// GOAWAY (NO_ERROR) once the connection carried its quota of requests or reached its age limit: senders
    /// must reconnect, as when Apple recycles a front end.
    func recycleIfDue(_ state: APNsConnectionState, now: Millis) -> [UInt8]? {
        state.requestCount += 1
        let s = state.shaping
        guard !state.recycled, s.goAwayAfterRequests > 0 || s.goAwayAfterSeconds > 0 else { return nil }
        let byCount = s.goAwayAfterRequests > 0 && state.requestCount >= s.goAwayAfterRequests
        let byAge = s.goAwayAfterSeconds > 0 && Double(now - state.openedAt) >= s.goAwayAfterSeconds * 1000
        guard byCount || byAge else { return nil }
        state.recycled = true
        return Array(#"{"reason":"ConnectionRecycled"}"#.utf8)
    }
}
