import APNsEmulator
import WireBytes

/// A plugin call as the app's code makes it. Arguments are optional where the plugin takes a reference: nil
/// is the null that makes the plugin throw `ArgumentNullException`.
///
/// The five `notify…` calls are the forwarding methods called directly, with any arguments: what an app's own
/// delegate code does. The delegate presets (`DelegateConfiguration`) forward OS callbacks without a call
/// record, as a correctly wired delegate does.
public enum PluginCall: Sendable, Equatable {
    case requestAuthorization(options: [AuthorizationOption]?)
    case getNotificationSettings
    case getToken
    /// Fires the cancellation token of an earlier call (a GetToken waiting for the delegate, or a
    /// RequestAuthorization waiting for the prompt's answer).
    case cancel(callId: Int)
    case getProviderEnvironment
    case getColdStartNotification
    case setBadgeCount(Int?)
    /// The token's raw bytes, as the OS hands them to `didRegisterForRemoteNotificationsWithDeviceToken`.
    case notifyDidRegisterForRemoteNotifications(deviceToken: [UInt8]?)
    case notifyDidFailToRegister(errorDescription: String?)
    case notifyWillPresentNotification(ApnsNotification?)
    case notifyDidReceiveResponse(ApnsNotification?, actionIdentifier: String?)
    case notifyColdStartNotification(userInfoJson: String?)
    /// The local-notification add-on's calls: the same OS authorization and badge as the push plugin's.
    case localRequestAuthorization(options: [AuthorizationOption]?)
    case localGetNotificationSettings
    case localSetBadgeCount(Int?)
}

extension VirtualApp {
    /// Makes a plugin call; returns its record (pending when it waits for the OS or the delegate).
    /// `cancel` is not a call of its own: it returns the record of the call it cancelled.
    ///
    /// Decisions: calls come from the app's code, so an app that is not running is launched first (as the
    /// user opening it), never called while it has no process. A null argument throws before anything else;
    /// then a cancellation token cancelled before the call (`alreadyCancelled`) ends it at once with
    /// `Failure(Cancelled)`, doing nothing.
    mutating func call(_ call: PluginCall, alreadyCancelled: Bool = false, _ ctx: OSContext) -> CallRecord? {
        if case .cancel(let target) = call {
            cancel(target, ctx)
            return callIndex(target).map { calls[$0] }
        }
        ensureRunning(ctx)
        let callId = nextCallId
        nextCallId += 1
        let kind = Self.kind(of: call)
        calls.append(CallRecord(callId: callId, call: kind, calledAt: ctx.now, state: .pending))
        Self.trim(&calls)
        if let parameter = Self.nullArgument(of: call) {
            complete(callId, .threwArgumentNull(parameter: parameter), ctx)
        } else if alreadyCancelled {
            complete(callId, .completed(.failure(.cancelled, message: "the cancellation token was already cancelled")),
                     ctx)
        } else if configuration.unknownOutcomeCalls.contains(kind) {
            complete(callId, .completed(.unknownOutcome), ctx)
        } else {
            run(call, callId: callId, ctx)
        }
        return callIndex(callId).map { calls[$0] }
    }

    /// A call whose arguments are all there.
    private mutating func run(_ call: PluginCall, callId: Int, _ ctx: OSContext) {
        let hasPush = configuration.entitlements.push
        switch call {
        case .requestAuthorization(let options), .localRequestAuthorization(let options):
            perform(plugin.requestAuthorization(callId: callId, options: options ?? []), ctx)
        case .getNotificationSettings, .localGetNotificationSettings:
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
        case .setBadgeCount(let count), .localSetBadgeCount(let count):
            // Decisions: a negative count clears the badge (the value reaches the OS unvalidated; iOS treats
            // negative badge numbers as "no badge"); without badge authorization the OS leaves the badge as
            // it is, and the plugin, passing the OS through, still reports Success.
            if authorization.allows(.badge), let count { badge = max(0, count) }
            perform(plugin.setBadgeCount(callId: callId), ctx)
        case .notifyDidRegisterForRemoteNotifications(let bytes):
            perform(plugin.forwarded(.didRegister(token: Hex.lowercase(bytes ?? []))), callId: callId,
                    ctx)
        case .notifyDidFailToRegister(let description):
            perform(plugin.forwarded(.didFailToRegister(description: description ?? "")), callId: callId, ctx)
        case .notifyWillPresentNotification(let n?):
            perform(plugin.forwarded(.willPresent(n), answer: .presentationOptions([])), callId: callId, ctx)
        case .notifyDidReceiveResponse(let n?, let action):
            perform(plugin.forwarded(.didReceive(n, actionIdentifier: action ?? "", userText: nil, launchedApp: false)),
                    callId: callId, ctx)
        case .notifyColdStartNotification(let json):
            perform(plugin.forwarded(.launchedWithRemoteNotification(identifier: "", userInfoJson: json ?? "")),
                    callId: callId, ctx)
        case .cancel, .notifyWillPresentNotification(nil), .notifyDidReceiveResponse(nil, _):
            break
        }
    }

    /// The forwarding calls' actions, then their own completion.
    private mutating func perform(_ forwarded: (actions: [PluginAction], answer: PluginValue), callId: Int,
                                  _ ctx: OSContext) {
        perform(forwarded.actions, ctx)
        complete(callId, .completed(.success(forwarded.answer)), ctx)
    }

    /// The caller's cancellation token fired for `target`: a call still waiting ends with `Failure(Cancelled)`;
    /// one that already ended is not affected.
    mutating func cancel(_ target: Int, _ ctx: OSContext) {
        if plugin.pendingTokenCall == target {
            perform(plugin.cancelGetToken(callId: target), ctx)
        } else if var pending = promptPending, let i = pending.callIds.firstIndex(of: target) {
            // The prompt stays up: the user's answer still sets the authorization, and any other call waiting
            // on it still gets it.
            pending.callIds.remove(at: i)
            promptPending = pending
            complete(target, .completed(.failure(.cancelled, message: "the call was cancelled")), ctx)
        }
    }

    /// The parameter whose null makes the plugin throw, if the call has one.
    static func nullArgument(of call: PluginCall) -> String? {
        switch call {
        case .requestAuthorization(nil), .localRequestAuthorization(nil): return "options"
        case .setBadgeCount(nil), .localSetBadgeCount(nil): return "count"
        case .notifyDidRegisterForRemoteNotifications(nil): return "deviceToken"
        case .notifyDidFailToRegister(nil): return "errorDescription"
        case .notifyWillPresentNotification(nil), .notifyDidReceiveResponse(nil, _): return "notification"
        case .notifyDidReceiveResponse(_, nil): return "actionIdentifier"
        case .notifyColdStartNotification(nil): return "userInfoJson"
        default: return nil
        }
    }

    static func kind(of call: PluginCall) -> CallRecord.Call {
        switch call {
        case .requestAuthorization: return .requestAuthorization
        case .getNotificationSettings: return .getNotificationSettings
        case .getToken, .cancel: return .getToken
        case .getProviderEnvironment: return .getProviderEnvironment
        case .getColdStartNotification: return .getColdStartNotification
        case .setBadgeCount: return .setBadgeCount
        case .notifyDidRegisterForRemoteNotifications: return .notifyDidRegisterForRemoteNotifications
        case .notifyDidFailToRegister: return .notifyDidFailToRegister
        case .notifyWillPresentNotification: return .notifyWillPresentNotification
        case .notifyDidReceiveResponse: return .notifyDidReceiveResponse
        case .notifyColdStartNotification: return .notifyColdStartNotification
        case .localRequestAuthorization: return .localRequestAuthorization
        case .localGetNotificationSettings: return .localGetNotificationSettings
        case .localSetBadgeCount: return .localSetBadgeCount
        }
    }
}
