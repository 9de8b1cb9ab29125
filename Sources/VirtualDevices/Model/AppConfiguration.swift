/// How an app is installed on a virtual device: its build, entitlements, delegates and what its user does
/// when asked.
public struct AppConfiguration: Sendable, Encodable, Equatable {
    public var bundleId: String
    public var build: BuildKind
    public var entitlements: Entitlements
    public var delegate: DelegateConfiguration
    /// What the user answers to the permission prompt (`wait`: nothing until the `answerPrompt` action).
    public var promptAnswer: PromptAnswer
    public var categories: [NotificationCategory]
    /// When set, the OS reports this registration failure (didFailToRegister) instead of a token.
    public var registrationError: String?
    /// Calls for which the OS answers something newer than this plugin version knows: they end with
    /// `UnknownOutcome` (how a caller's handling of that third result case gets exercised).
    public var unknownOutcomeCalls: [CallRecord.Call]
    /// The app's Notification Service Extension and what it does (nil: the app has none).
    public var serviceExtension: ServiceExtensionScript?
    /// Categories the app's Notification Content Extension draws (`UNNotificationExtensionCategory`).
    public var contentExtensionCategories: [String]
    /// Its memory and how it answers actions (used only when it draws categories).
    public var contentExtension: ContentExtensionSettings
    /// Push SDKs the app links (Firebase Messaging, OneSignal).
    public var pushSDKs: HostedPushSDKs

    public init(bundleId: String, build: BuildKind = .development, entitlements: Entitlements = Entitlements(),
                delegate: DelegateConfiguration = DelegateConfiguration(), promptAnswer: PromptAnswer = .allow,
                categories: [NotificationCategory] = [], registrationError: String? = nil,
                unknownOutcomeCalls: [CallRecord.Call] = [], serviceExtension: ServiceExtensionScript? = nil,
                contentExtensionCategories: [String] = [],
                contentExtension: ContentExtensionSettings = ContentExtensionSettings(),
                pushSDKs: HostedPushSDKs = HostedPushSDKs()) {
        self.contentExtension = contentExtension
        self.pushSDKs = pushSDKs
        self.bundleId = bundleId
        self.build = build
        self.entitlements = entitlements
        self.delegate = delegate
        self.promptAnswer = promptAnswer
        self.categories = categories
        self.registrationError = registrationError
        self.unknownOutcomeCalls = unknownOutcomeCalls
        self.serviceExtension = serviceExtension
        self.contentExtensionCategories = contentExtensionCategories
    }
}

/// The user's answer to the notification permission prompt.
public enum PromptAnswer: String, Sendable, Codable, CaseIterable {
    case allow
    case deny
    /// The prompt stays up until the `answerPrompt` user action.
    case wait
}
