/// Why a push's fate step happened, as a stable code a test can match; the step's `reason` says the same in
/// words (with the values involved). Stored as its raw byte in the fate log; written as its name in JSON.
public enum FateCode: UInt8, Sendable, CaseIterable, Codable {
    // APNs' side (the delivery queue).
    /// Stored for an offline device (the newest push per app).
    case storedOffline
    /// Priority 5 or 1: APNs delays it (`--low-priority-delay`).
    case priorityDelay
    /// A newer push for the same app replaced it while the device was offline.
    case replacedWhileOffline
    /// Its apns-expiration passed while the device was offline.
    case expiredWhileOffline
    /// apns-expiration 0 and the device offline: delivered now or never.
    case expirationZero
    /// apns-expiration had passed when it reached APNs' delivery.
    case expirationPassed
    /// No app owns the token any more.
    case notInstalled
    /// The token's install ended while APNs held the push.
    case tokenEnded

    // The device's side.
    /// A push type the system or an app extension handles (voip, complication…), not the notification centre.
    case systemHandled
    /// Notifications are not authorized: nothing shown, no sound, no badge.
    case notAuthorized
    /// No alert text: badge and sound only, or nothing.
    case noAlertText
    /// The service extension is running.
    case extensionRunning
    /// The app was in the foreground and willPresent answered no banner or list.
    case willPresentSuppressed
    /// Alerts are not among the authorized options.
    case alertsNotAuthorized
    /// Shown as a banner only (willPresent did not ask for the list).
    case bannerOnly
    /// Shown in the notification centre (the app not in the foreground).
    case shownInCentre
    /// Presented in the foreground as willPresent asked.
    case presentedInForeground
    /// Replaced on screen by a newer notification with the same identifier (apns-collapse-id).
    case replacedOnScreen
    /// A background push to an app the user force-quit.
    case forceQuit
    /// A background push to an app in the foreground (didReceiveRemoteNotification).
    case foregroundDelivered
    /// A background push woke the suspended app.
    case wokeApp
    /// A background push launched the app in the background (it was not running).
    case launchedInBackground
    /// The background budget is used up: held, the newest only.
    case budgetHeld
    /// A newer background push replaced the one held by the budget.
    case budgetReplaced
    /// The app's install ended (uninstall, restore) while the device held the push.
    case installEnded
    /// The user force-quit the app while the device held the push.
    case forceQuitWhileHeld

    /// The code as JSON and scenarios spell it.
    public var name: String { String(describing: self) }

    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let code = Self.allCases.first(where: { $0.name == name }) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown fate code \(name)"))
        }
        self = code
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name)
    }
}
