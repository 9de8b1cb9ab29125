/// Why a device, app or user action was refused (the control API answers 404 or 409 with the message).
public enum DeviceError: Error, Equatable, CustomStringConvertible {
    case deviceNotFound(String)
    case deviceExists(String)
    case appNotInstalled(device: String, bundleId: String)
    case appAlreadyInstalled(device: String, bundleId: String)
    case notificationNotFound(String)
    case unknownAction(category: String, action: String)
    case textInputNotAllowed(String)
    case noPromptShowing
    /// An SDK call to an app that does not host the managed push SDK.
    case noManagedSDK(String)
    /// No in-app banner of the managed SDK for this delivery.
    case noBanner(String)
    case tokenIssueFailed(String)
    /// The state store refused a change (disk full, read-only); nothing was changed.
    case storeFailed(String)

    /// 404 for what does not exist, 409 for what the state forbids.
    public var isNotFound: Bool {
        switch self {
        case .deviceNotFound, .appNotInstalled, .notificationNotFound: return true
        case .noBanner(let id): return !id.isEmpty
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .deviceNotFound(let id): return "no virtual device '\(id)'"
        case .deviceExists(let id): return "a virtual device '\(id)' already exists"
        case .appNotInstalled(let d, let b): return "'\(b)' is not installed on device '\(d)'"
        case .appAlreadyInstalled(let d, let b): return "'\(b)' is already installed on device '\(d)'"
        case .notificationNotFound(let id):
            return "no notification '\(id)' in the notification centre (tapped or dismissed already, never shown,"
                + " or shown as a banner only)"
        case .unknownAction(let c, let a):
            return a.isEmpty ? "the notification's category '\(c)' is not registered by the app"
                : "category '\(c)' has no action '\(a)' (register it with the app's categories)"
        case .textInputNotAllowed(let a): return "action '\(a)' is not a text-input action: it takes no text"
        case .noBanner(let d):
            return d.isEmpty ? "the managed SDK's foreground listener has handed the app no banner (preventDefault is off, or"
                + " no notification of its came in the foreground)" : "no in-app banner for delivery '\(d)'"
        case .noManagedSDK(let b): return "'\(b)' does not host the managed push SDK (install it with `kits`)"
        case .noPromptShowing: return "no permission prompt is showing (promptAnswer is not 'wait', or it was answered)"
        case .tokenIssueFailed(let why): return "could not issue a device token: \(why)"
        case .storeFailed(let why): return why
        }
    }
}
