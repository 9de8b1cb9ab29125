/// What the app's own delegates do: the misconfigurations a real app ships with, to emulate on purpose.
public struct DelegateConfiguration: Sendable, Encodable, Equatable {
    /// Which OS callbacks the app's delegates pass on to the plugin.
    public var forwarding: DelegateForwardingMode
    /// The notification-centre delegate is set after launch finished (not in willFinishLaunching or
    /// didFinishLaunching): the response to the tap that launched the app is missed.
    public var setLate: Bool
    /// A third-party package that swaps the notification-centre delegate at the first permission prompt.
    public var thirdParty: ThirdPartyDelegate
    /// What `willPresent` returns for a foreground notification.
    public var presentation: [PresentationOption]
    /// `willPresent` returns no options (nothing shown) when the payload has this top-level key (as a chat
    /// app suppresses the conversation already on screen).
    public var suppressWhenPayloadHas: String?
    /// What the delegate does with each callback it forwards (absent: forwards it as the OS gave it).
    public var callbacks: [DelegateCallback: CallbackScript]

    public init(forwarding: DelegateForwardingMode = .correct, setLate: Bool = false,
                thirdParty: ThirdPartyDelegate = .none,
                presentation: [PresentationOption] = [.banner, .list, .sound, .badge],
                suppressWhenPayloadHas: String? = nil, callbacks: [DelegateCallback: CallbackScript] = [:]) {
        self.callbacks = callbacks
        self.forwarding = forwarding
        self.setLate = setLate
        self.thirdParty = thirdParty
        self.presentation = presentation
        self.suppressWhenPayloadHas = suppressWhenPayloadHas
    }

    /// The options `willPresent` returns for a notification with this payload.
    func presentationOptions(for content: PushContent) -> [PresentationOption] {
        if let key = suppressWhenPayloadHas, content.topLevelKeys.contains(key) { return [] }
        return presentation
    }
}

/// How the app's delegates forward OS callbacks to the plugin.
public enum DelegateForwardingMode: String, Sendable, Codable, CaseIterable {
    /// Every plugin method is called for remote notifications (and only those).
    case correct
    /// Nothing is forwarded: GetToken never completes, no events fire.
    case none
    /// Also forwards local notifications (a realistic mistake: events fire for them too).
    case includingLocal
}

/// A third-party package replacing the notification-centre delegate (see `DelegateAttachment`).
public enum ThirdPartyDelegate: String, Sendable, Codable, CaseIterable {
    case none
    /// Replaced at the first permission prompt, never restored.
    case replaces
    /// Replaced at the first prompt, and the app sets its own delegate again right after.
    case replacesThenReattached
}
