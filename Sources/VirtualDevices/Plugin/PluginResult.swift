/// The three-way result of every plugin call: success, failure, or an unknown outcome.
public enum PluginResult: Sendable, Equatable {
    case success(PluginValue)
    case failure(PluginProblem, message: String)
    /// An outcome this plugin version does not know (a newer OS answer); callers must handle it.
    case unknownOutcome

    /// The result's code on the wire: `UNKNOWN` and `FAILURE`; a success has none.
    public var wireCode: String? {
        switch self {
        case .success: return nil
        case .failure: return "FAILURE"
        case .unknownOutcome: return "UNKNOWN"
        }
    }
}

/// The data a successful call carries.
public enum PluginValue: Sendable, Equatable {
    /// SetBadgeCount: nothing.
    case none
    /// RequestAuthorization: whether the user allowed notifications (a denial is still a success).
    case granted(Bool)
    /// GetNotificationSettings.
    case settings(AuthorizationStatus)
    /// GetToken: lowercase hex of the token bytes.
    case token(String)
    /// GetProviderEnvironment.
    case environment(ProviderEnvironment)
    /// GetColdStartNotification (the empty notification when there is none).
    case notification(ApnsNotification)
    /// NotifyWillPresentNotification: always empty (the app's `willPresent` hands its options to the OS itself).
    case presentationOptions([PresentationOption])
}

/// Events the plugin raises on the app's main thread.
public enum PluginEvent: Sendable, Equatable {
    /// A token arrived through the delegate (every time, not only when it changed).
    case tokenRefreshed(String)
    /// A notification arrived while the app was in the foreground (`willPresent` forwarded).
    case notificationPresented(ApnsNotification)
    /// The user responded to a notification: a tap, an action (with its text input), or a dismiss with
    /// `customDismissAction`.
    case notificationOpened(ApnsNotification, actionIdentifier: String, userText: String?)
}

/// What the plugin asks its host to do, in order: the way every effect of a call or an OS callback is
/// journaled and can be asserted.
public enum PluginAction: Sendable, Equatable {
    /// A call ends with this result.
    case complete(callId: Int, PluginResult)
    /// An event fires.
    case fire(PluginEvent)
    /// Ask the OS to register for remote notifications (`registerForRemoteNotifications`).
    case startRegistration
    /// Ask the OS to show the permission prompt for these options.
    case requestAuthorization(callId: Int, options: [AuthorizationOption])
}
