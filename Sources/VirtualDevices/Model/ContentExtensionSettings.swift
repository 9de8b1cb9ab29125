/// How the app's Notification Content Extension behaves once the user expands one of its notifications.
public struct ContentExtensionSettings: Sendable, Encodable, Equatable {
    /// Peak memory of the extension's view, and the cap the system's watchdog kills it over (the expanded
    /// notification then falls back to the default interface).
    public var memoryMB: Int
    public var memoryLimitMB: Int
    /// What its `didReceive(_:completionHandler:)` answers for an action button pressed while it is expanded;
    /// nil: it does not implement it, and the action goes to the app as for any notification.
    public var responseOption: ResponseOption?

    /// `UNNotificationContentExtensionResponseOption`.
    public enum ResponseOption: String, Sendable, Codable, CaseIterable {
        /// The extension handled it; the notification stays expanded; the app hears nothing.
        case doNotDismiss
        /// The notification is dismissed; the app hears nothing.
        case dismiss
        /// The notification is dismissed and the action reaches the app.
        case dismissAndForwardAction
    }

    public init(memoryMB: Int = 10, memoryLimitMB: Int = 120, responseOption: ResponseOption? = nil) {
        self.memoryMB = memoryMB
        self.memoryLimitMB = memoryLimitMB
        self.responseOption = responseOption
    }
}
