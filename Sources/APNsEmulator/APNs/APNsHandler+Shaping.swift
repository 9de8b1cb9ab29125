import APNsProtocol
import H2Transport

/// Load shaping on top of validation: Apple-like back-pressure a dispatcher must cope with.
extension APNsHandler {
    /// Picks up changed shaping settings (one atomic load when nothing changed); a new stream limit is
    /// advertised at once unless a realism rule holds the connection at one stream.
    func refreshShaping(_ state: APNsConnectionState, connection: H2ServerConnection) {
        let generation = services.shaping.generation
        guard generation != state.shapingGeneration else { return }
        (state.shaping, state.shapingGeneration) = services.shaping.snapshot()
        let limit = state.shaping.maxConcurrentStreams
        // A connection a realism rule holds at one stream (not yet authenticated, or throttled after a
        // rejection) keeps it; the rule lifts it to the new limit later.
        let heldByRealism = behaviorHoldsOneStream && state.advertisedStreams == 1
        if state.advertisedStreams != limit && !heldByRealism {
            advertise(limit, on: connection, state: state)
        }
    }

    /// A brownout draw or the per-connection rate limit, when either answers this request.
    func shapedRejection(_ state: APNsConnectionState, now: Millis) -> APNsReason? {
        let s = state.shaping
        if s.brownoutShare > 0 && state.nextUniform() < s.brownoutShare {
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

    /// The outcome answered with `reason` instead (keeping the request's summary and apns-id).
    static func replace(_ outcome: Result<AcceptedPush, Rejection>, with reason: APNsReason) -> Result<AcceptedPush, Rejection> {
        switch outcome {
        case .success(let push): return .failure(Rejection(reason: reason, apnsId: push.apnsId, summary: push.summary))
        case .failure(let r): return .failure(Rejection(reason: reason, apnsId: r.apnsId, summary: r.summary))
        }
    }

    /// GOAWAY (NO_ERROR) once the connection carried its quota of requests or reached its age limit: senders
    /// must reconnect, as when Apple recycles a front end.
    func recycleIfDue(_ state: APNsConnectionState, connection: H2ServerConnection, now: Millis) {
        state.requestCount += 1
        let s = state.shaping
        guard !state.recycled, s.goAwayAfterRequests > 0 || s.goAwayAfterSeconds > 0 else { return }
        let byCount = s.goAwayAfterRequests > 0 && state.requestCount >= s.goAwayAfterRequests
        let byAge = s.goAwayAfterSeconds > 0 && Double(now - state.openedAt) >= s.goAwayAfterSeconds * 1000
        guard byCount || byAge else { return }
        state.recycled = true
        connection.sendGoAway(debugData: Array(#"{"reason":"ConnectionRecycled"}"#.utf8))
    }
}
