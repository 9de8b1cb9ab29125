/// A category the app registered (`UNNotificationCategory`): its actions and whether dismissing reaches
/// the app.
public struct NotificationCategory: Sendable, Codable, Equatable {
    public var identifier: String
    public var actions: [NotificationAction]
    /// `customDismissAction`: a dismiss is reported to the app with the dismiss action identifier.
    public var customDismissAction: Bool

    public init(identifier: String, actions: [NotificationAction] = [], customDismissAction: Bool = false) {
        self.identifier = identifier
        self.actions = actions
        self.customDismissAction = customDismissAction
    }
}

/// A button of a category (`UNNotificationAction`, or `UNTextInputNotificationAction` with `textInput`).
public struct NotificationAction: Sendable, Codable, Equatable {
    public var identifier: String
    public var title: String
    /// Opens the app in the foreground (else the app handles it in the background).
    public var foreground: Bool
    public var destructive: Bool
    public var authenticationRequired: Bool
    /// A text-input action: the user's text comes with the response.
    public var textInput: Bool

    public init(identifier: String, title: String = "", foreground: Bool = false, destructive: Bool = false,
                authenticationRequired: Bool = false, textInput: Bool = false) {
        self.identifier = identifier
        self.title = title
        self.foreground = foreground
        self.destructive = destructive
        self.authenticationRequired = authenticationRequired
        self.textInput = textInput
    }
}
