/// The OS callbacks an app's delegate passes to the push plugin, named by the forwarding method each one calls.
public enum DelegateCallback: String, Sendable, Codable, CodingKeyRepresentable, CaseIterable {
    /// `didRegisterForRemoteNotificationsWithDeviceToken` → NotifyDidRegisterForRemoteNotifications.
    case didRegisterForRemoteNotifications
    /// `didFailToRegisterForRemoteNotificationsWithError` → NotifyDidFailToRegister.
    case didFailToRegister
    /// `userNotificationCenter(_:willPresent:…)` → NotifyWillPresentNotification.
    case willPresentNotification
    /// `userNotificationCenter(_:didReceive:…)` → NotifyDidReceiveResponse.
    case didReceiveResponse
    /// The launch notification seen at app start → NotifyColdStartNotification.
    case coldStartNotification

    init(_ callback: OSCallback) {
        switch callback {
        case .didRegister: self = .didRegisterForRemoteNotifications
        case .didFailToRegister: self = .didFailToRegister
        case .willPresent: self = .willPresentNotification
        case .didReceive: self = .didReceiveResponse
        case .launchedWithRemoteNotification: self = .coldStartNotification
        }
    }

    /// The plugin method the callback calls.
    var method: CallRecord.Call {
        switch self {
        case .didRegisterForRemoteNotifications: return .notifyDidRegisterForRemoteNotifications
        case .didFailToRegister: return .notifyDidFailToRegister
        case .willPresentNotification: return .notifyWillPresentNotification
        case .didReceiveResponse: return .notifyDidReceiveResponse
        case .coldStartNotification: return .notifyColdStartNotification
        }
    }

    /// The arguments its method takes (what `ForwardedArguments` may change).
    public var arguments: [String] {
        switch self {
        case .didRegisterForRemoteNotifications: return ["deviceToken"]
        case .didFailToRegister: return ["errorDescription"]
        case .willPresentNotification: return ["notification"]
        case .didReceiveResponse: return ["notification", "actionIdentifier"]
        case .coldStartNotification: return ["userInfoJson"]
        }
    }
}
