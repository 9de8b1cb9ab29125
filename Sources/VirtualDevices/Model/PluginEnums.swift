/// The plugin's enums, serialised as the integers the push plugin's API gives them.

/// Which APNs environment the app's signature names.
public enum ProviderEnvironment: Int, Sendable, Codable, CaseIterable {
    /// Never returned on success.
    case unspecified = 0
    case apns = 1
    case apnsSandbox = 2
}

/// `UNAuthorizationStatus`, passed through as the OS reports it (the OS never reports 0).
public enum AuthorizationStatus: Int, Sendable, Codable, CaseIterable {
    case notDetermined = 1
    case denied = 2
    case authorized = 3
    case provisional = 4
    case ephemeral = 5
}

/// What `RequestAuthorization` asks for.
public enum AuthorizationOption: Int, Sendable, Codable, CaseIterable, Comparable {
    /// The "no option" default: passed through to the OS, which ignores it.
    case unspecified = 0
    case badge = 1
    case sound = 2
    case alert = 3
    case carPlay = 4
    case criticalAlert = 5
    case providesAppNotificationSettings = 6
    case provisional = 7

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// What the app's `willPresent` asks the OS to do with a foreground notification.
public enum PresentationOption: Int, Sendable, Codable, CaseIterable, Comparable {
    case badge = 1
    case sound = 2
    case list = 3
    case banner = 4

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// `UNNotificationInterruptionLevel`, as the plugin maps it.
public enum InterruptionLevel: Int, Sendable, Codable, CaseIterable {
    /// The field's default value: what a record built from the raw launch payload (cold start) and the
    /// empty notification carry, since only the OS computes the level.
    case unspecified = 0
    case passive = 1
    case active = 2
    case timeSensitive = 3
    case critical = 4

    /// `aps.interruption-level` strings.
    init?(apsValue: String) {
        switch apsValue {
        case "passive": self = .passive
        case "active": self = .active
        case "time-sensitive": self = .timeSensitive
        case "critical": self = .critical
        default: return nil
        }
    }
}

/// Why a plugin call failed (`Failure` result).
public enum PluginProblem: String, Sendable, Codable, CaseIterable {
    /// Remote notifications are not available here (simulator, or the OS reported a registration failure).
    case unavailable = "Unavailable"
    /// A precondition of the call does not hold (no push entitlement).
    case failedPrecondition = "FailedPrecondition"
    /// A newer GetToken, or the caller's cancellation token, ended the call.
    case cancelled = "Cancelled"
}

/// Identifiers the OS gives responses that are not custom actions.
public enum ActionIdentifier {
    public static let defaultAction = "com.apple.UNNotificationDefaultActionIdentifier"
    public static let dismissAction = "com.apple.UNNotificationDismissActionIdentifier"
}
