import APNsEmulator
import APNsProtocol

/// A plugin event as journaled: in order (`seq` is shared with call completions), with the time it fired.
public struct RecordedEvent: Sendable, Equatable {
    public var seq: Int
    public var at: Millis
    public var event: PluginEvent
}

/// One plugin call and, once it ended, its result.
public struct CallRecord: Sendable, Equatable {
    public enum Call: String, Sendable, Codable, CaseIterable {
        case requestAuthorization = "RequestAuthorization"
        case getNotificationSettings = "GetNotificationSettings"
        case getToken = "GetToken"
        case getProviderEnvironment = "GetProviderEnvironment"
        case getColdStartNotification = "GetColdStartNotification"
        case setBadgeCount = "SetBadgeCount"
        /// The forwarding methods, as the app's own code calls them (the delegate presets forward without a
        /// record; see `PluginCall`).
        case notifyDidRegisterForRemoteNotifications = "NotifyDidRegisterForRemoteNotifications"
        case notifyDidFailToRegister = "NotifyDidFailToRegister"
        case notifyWillPresentNotification = "NotifyWillPresentNotification"
        case notifyDidReceiveResponse = "NotifyDidReceiveResponse"
        case notifyColdStartNotification = "NotifyColdStartNotification"
        /// The Apple local-notification add-on in the same app: it shares the app's authorization and badge.
        case localRequestAuthorization = "LocalRequestAuthorization"
        case localGetNotificationSettings = "LocalGetNotificationSettings"
        case localSetBadgeCount = "LocalSetBadgeCount"
    }

    public enum State: Sendable, Equatable {
        /// Waiting for the OS or the delegate (GetToken, an unanswered prompt).
        case pending
        case completed(PluginResult)
        /// A null argument: a programming error the plugin throws (`ArgumentNullException`), not a result.
        case threwArgumentNull(parameter: String)
        /// The app's process ended while the call waited (its caller is gone with it).
        case abandoned
    }

    public var callId: Int
    public var call: Call
    public var calledAt: Millis
    public var state: State
    /// When it ended, and its place in the app's ordered log.
    public var completedAt: Millis?
    public var seq: Int?
}

/// What the app's delegate did with one OS callback: the trace of what reached the plugin, and why not.
public struct ForwardRecord: Sendable, Equatable {
    public enum Outcome: String, Sendable {
        /// The plugin method was called (its effects follow in the log).
        case forwarded
        /// The delegate's script dropped it.
        case dropped
        /// The script holds it for later (a `forwarded` or `abandoned` record follows).
        case delayed
        /// A null argument made the plugin throw `ArgumentNullException` (`parameter`).
        case threw
        /// The app's process ended while it was delayed.
        case abandoned
        /// The callback never reached the plugin (`reason`: the delegate forwards nothing, a third-party
        /// package owns the notification-centre delegate…).
        case notForwarded
    }

    /// Why a callback never reached the plugin, or was abandoned.
    public enum Code: String, Sendable {
        case delegateForwardsNothing, delegateSetLate, thirdPartyDelegate, localNotification, processEnded
    }

    public var seq: Int
    public var at: Millis
    public var callback: DelegateCallback
    public var outcome: Outcome
    public var parameter: String?
    public var code: Code?
    public var reason: String?
}
