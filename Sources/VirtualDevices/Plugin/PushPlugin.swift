/// The app-side push plugin ("APNs Add-on", `IAPNSPlugin`): calls in, OS callbacks in, actions out.
///
/// ### Overview
/// The plugin never installs delegates and keeps no tokens. Calls either complete at once or wait for an
/// OS callback that the app's delegate must forward (GetToken, RequestAuthorization's prompt). Every
/// effect is returned as an ordered list of `PluginAction`s; the host (`VirtualApp`) carries them out and
/// journals them, so a test can assert the exact sequence.
///
/// ### Implementation
/// Small machines, one per concern: `TokenRequestMachine` (GetToken), `ColdStartSlot` (the launch
/// notification). Authorization state belongs to the OS (it is shared with the local add-on), so the
/// plugin only turns the OS's answer into a result. No I/O, no clock.
struct PushPlugin: Sendable {
    let platform: Platform
    private var tokenRequest = TokenRequestMachine()
    private var coldStart = ColdStartSlot()

    init(platform: Platform) {
        self.platform = platform
    }

    /// What GetColdStartNotification would return now, without consuming it.
    var coldStartPeek: ApnsNotification { coldStart.peek() }

    /// The GetToken call waiting for the delegate, if any.
    var pendingTokenCall: Int? { tokenRequest.pendingCall }

    // MARK: Calls

    /// RequestAuthorization(options): the OS decides (prompt or earlier choice), see `authorizationAnswered`.
    func requestAuthorization(callId: Int, options: [AuthorizationOption]) -> [PluginAction] {
        [.requestAuthorization(callId: callId, options: options)]
    }

    /// The OS answered a RequestAuthorization. A denial, and the error macOS reports once notifications
    /// are switched off, are both `Success(Granted=false)`, never a failure.
    func authorizationAnswered(callId: Int, granted: Bool) -> [PluginAction] {
        [.complete(callId: callId, .success(.granted(granted)))]
    }

    /// The OS answered a RequestAuthorization with an error (macOS, notifications switched off): the plugin
    /// still reports `Success(Granted=false)`; the error is not surfaced.
    func authorizationFailed(callId: Int, osError: String) -> [PluginAction] {
        [.complete(callId: callId, .success(.granted(false)))]
    }

    /// GetNotificationSettings: the OS status as-is.
    func getNotificationSettings(callId: Int, status: AuthorizationStatus) -> [PluginAction] {
        [.complete(callId: callId, .success(.settings(status)))]
    }

    /// GetToken: fails at once without the push entitlement or on a simulator; otherwise starts a
    /// registration (cancelling a pending call) and waits for the delegate.
    mutating func getToken(callId: Int, hasPushEntitlement: Bool, isSimulator: Bool) -> [PluginAction] {
        guard hasPushEntitlement else {
            return [.complete(callId: callId, .failure(
                .failedPrecondition, message: "the app has no aps-environment entitlement"))]
        }
        guard !isSimulator else {
            return [.complete(callId: callId, .failure(
                .unavailable, message: "remote notifications are not supported in the simulator"))]
        }
        return tokenRequest.getToken(callId: callId)
    }

    /// The caller's cancellation token fired for `callId`.
    mutating func cancelGetToken(callId: Int) -> [PluginAction] {
        tokenRequest.cancel(callId: callId)
    }

    /// GetProviderEnvironment: from the signed entitlement (`BuildKind.providerEnvironment`).
    func getProviderEnvironment(callId: Int, hasPushEntitlement: Bool, environment: ProviderEnvironment)
        -> [PluginAction]
    {
        guard hasPushEntitlement else {
            return [.complete(callId: callId, .failure(
                .failedPrecondition, message: "the app has no aps-environment entitlement"))]
        }
        return [.complete(callId: callId, .success(.environment(environment)))]
    }

    /// GetColdStartNotification: the launch notification once, then the empty one.
    mutating func getColdStartNotification(callId: Int) -> [PluginAction] {
        [.complete(callId: callId, .success(.notification(coldStart.take())))]
    }

    /// SetBadgeCount(n): the OS sets the badge; the plugin passes `n` unvalidated.
    func setBadgeCount(callId: Int) -> [PluginAction] {
        [.complete(callId: callId, .success(.none))]
    }

    // MARK: Forwarded OS callbacks

    /// A callback the app's delegate forwarded (see `DelegateForwarding` for which ones arrive).
    mutating func notify(_ callback: OSCallback) -> [PluginAction] {
        switch callback {
        case .didRegister(let token):
            return tokenRequest.didRegister(token: token)
        case .didFailToRegister(let description):
            return tokenRequest.didFailToRegister(description: description)
        case .launchedWithRemoteNotification(let identifier, let json):
            coldStart.store(identifier: identifier, userInfoJson: json, platform: platform)
            return []
        case .willPresent(let n):
            return [.fire(.notificationPresented(n))]
        case .didReceive(let n, let action, let text, let launchedApp):
            // macOS has no launch options: the first response after a launch is the cold-start one.
            if launchedApp && platform == .macOS {
                coldStart.store(identifier: n.identifier, userInfoJson: n.userInfoJson, platform: platform)
            }
            return [.fire(.notificationOpened(n, actionIdentifier: action, userText: text))]
        }
    }

    /// A forwarding method called by the app's code: the same effects as the forwarded callback, and the answer
    /// the call itself returns (its response has no fields, except NotifyWillPresentNotification's empty
    /// presentation options).
    mutating func forwarded(_ callback: OSCallback, answer: PluginValue = .none)
        -> (actions: [PluginAction], answer: PluginValue)
    {
        (notify(callback), answer)
    }

    /// The app process starts again: nothing is stored for cold start and no call survives.
    mutating func relaunched() {
        coldStart.reset()
        tokenRequest = TokenRequestMachine()
    }
}
