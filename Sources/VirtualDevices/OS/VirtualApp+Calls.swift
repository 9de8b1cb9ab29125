import APNsEmulator

/// A plugin call as the app makes it. Arguments are optional where the plugin takes a reference: nil
/// is the null that makes the plugin throw `ArgumentNullException`.
public enum PluginCall: Sendable, Equatable {
    case requestAuthorization(options: [AuthorizationOption]?)
    case getNotificationSettings
    case getToken
    /// Fires the cancellation token of an earlier GetToken call.
    case cancelGetToken(callId: Int)
    case getProviderEnvironment
    case getColdStartNotification
    case setBadgeCount(Int?)
}

extension VirtualApp {
    /// Makes a plugin call; returns its record (pending when it waits for the OS or the delegate).
    /// `cancelGetToken` is not a call of its own: it returns the record of the call it cancelled.
    ///
    /// Decision: calls come from the app's code, so an app that is not running is launched first (as the
    /// user opening it), never called while it has no process.
    mutating func call(_ call: PluginCall, _ ctx: OSContext) -> CallRecord? {
        if case .cancelGetToken(let target) = call {
            perform(plugin.cancelGetToken(callId: target), ctx)
            return callIndex(target).map { calls[$0] }
        }
        ensureRunning(ctx)
        let callId = nextCallId
        nextCallId += 1
        calls.append(CallRecord(callId: callId, call: Self.kind(of: call), calledAt: ctx.now, state: .pending))
        Self.trim(&calls)
        let hasPush = configuration.entitlements.push
        let kind = Self.kind(of: call)
        if configuration.unknownOutcomeCalls.contains(kind) && !Self.hasNullArgument(call) {
            complete(callId, .completed(.unknownOutcome), ctx)
            return callIndex(callId).map { calls[$0] }
        }
        switch call {
        case .requestAuthorization(let options):
            guard let options else {
                complete(callId, .threwArgumentNull(parameter: "options"), ctx)
                break
            }
            perform(plugin.requestAuthorization(callId: callId, options: options), ctx)
        case .getNotificationSettings:
            perform(plugin.getNotificationSettings(callId: callId, status: authorization.status), ctx)
        case .getToken:
            perform(plugin.getToken(callId: callId, hasPushEntitlement: hasPush,
                                    isSimulator: configuration.build == .simulator), ctx)
        case .getProviderEnvironment:
            perform(plugin.getProviderEnvironment(
                callId: callId, hasPushEntitlement: hasPush,
                environment: configuration.build.providerEnvironment(on: plugin.platform)), ctx)
        case .getColdStartNotification:
            perform(plugin.getColdStartNotification(callId: callId), ctx)
        case .setBadgeCount(let count):
            guard let count else {
                complete(callId, .threwArgumentNull(parameter: "count"), ctx)
                break
            }
            // Decisions: a negative count clears the badge (the value reaches the OS unvalidated; iOS treats
            // negative badge numbers as "no badge"); without badge authorization the OS leaves the badge as
            // it is, and the plugin, passing the OS through, still reports Success.
            if authorization.allows(.badge) { badge = max(0, count) }
            perform(plugin.setBadgeCount(callId: callId), ctx)
        case .cancelGetToken:
            break
        }
        return callIndex(callId).map { calls[$0] }
    }

    static func hasNullArgument(_ call: PluginCall) -> Bool {
        switch call {
        case .requestAuthorization(nil), .setBadgeCount(nil): return true
        default: return false
        }
    }

    static func kind(of call: PluginCall) -> CallRecord.Call {
        switch call {
        case .requestAuthorization: return .requestAuthorization
        case .getNotificationSettings: return .getNotificationSettings
        case .getToken, .cancelGetToken: return .getToken
        case .getProviderEnvironment: return .getProviderEnvironment
        case .getColdStartNotification: return .getColdStartNotification
        case .setBadgeCount: return .setBadgeCount
        }
    }
}
