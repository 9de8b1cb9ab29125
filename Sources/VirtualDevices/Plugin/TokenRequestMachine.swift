/// GetToken's lifecycle: at most one call waits for the delegate to forward a registration result.
///
/// ```
///            getToken(a)                     didRegister(hex)
///   idle ─────────────────► pending(a) ────────────────────────► idle   [complete(a, hex), fire(hex)]
///    ▲                        │  │  getToken(b)                         [fail(a, Cancelled), start]
///    │                        │  └────────────► pending(b)
///    └── cancel(a) / didFailToRegister(desc) ◄┘                          [fail(a, …)]
/// ```
/// Registration starts on every call (no caching). A token forwarded while nothing waits still fires
/// TokenRefreshed: the event fires every time the delegate forwards one.
struct TokenRequestMachine: Sendable {
    private enum State: Sendable, Equatable {
        case idle
        case pending(callId: Int)
    }

    private var state = State.idle

    /// The call waiting for a token, if any.
    var pendingCall: Int? {
        if case .pending(let id) = state { return id }
        return nil
    }

    mutating func getToken(callId: Int) -> [PluginAction] {
        var actions: [PluginAction] = []
        if case .pending(let previous) = state {
            actions.append(.complete(callId: previous, .failure(
                .cancelled, message: "a newer GetToken call replaced this one")))
        }
        state = .pending(callId: callId)
        actions.append(.startRegistration)
        return actions
    }

    /// The caller cancelled `callId` (its cancellation token). A call that already ended is not affected.
    mutating func cancel(callId: Int) -> [PluginAction] {
        guard case .pending(callId) = state else { return [] }
        state = .idle
        return [.complete(callId: callId, .failure(.cancelled, message: "the call was cancelled"))]
    }

    mutating func didRegister(token hex: String) -> [PluginAction] {
        defer { state = .idle }
        guard case .pending(let id) = state else { return [.fire(.tokenRefreshed(hex))] }
        return [.complete(callId: id, .success(.token(hex))), .fire(.tokenRefreshed(hex))]
    }

    mutating func didFailToRegister(description: String) -> [PluginAction] {
        guard case .pending(let id) = state else { return [] }
        state = .idle
        return [.complete(callId: id, .failure(.unavailable, message: description))]
    }
}
