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
    /// willPresent's answer by payload: the first rule that matches gives the options (else `presentation`).
    public var presentationRules: [PresentationRule]
    /// What the delegate does with each callback it forwards (absent: forwards it as the OS gave it).
    public var callbacks: [DelegateCallback: CallbackScript]

    public init(forwarding: DelegateForwardingMode = .correct, setLate: Bool = false,
                thirdParty: ThirdPartyDelegate = .none,
                presentation: [PresentationOption] = [.banner, .list, .sound, .badge],
                suppressWhenPayloadHas: String? = nil, presentationRules: [PresentationRule] = [],
                callbacks: [DelegateCallback: CallbackScript] = [:]) {
        self.callbacks = callbacks
        self.presentationRules = presentationRules
        self.forwarding = forwarding
        self.setLate = setLate
        self.thirdParty = thirdParty
        self.presentation = presentation
        self.suppressWhenPayloadHas = suppressWhenPayloadHas
    }

    /// The options `willPresent` returns for a notification with this payload.
    func presentationOptions(for content: PushContent) -> [PresentationOption] {
        if let key = suppressWhenPayloadHas, content.topLevelKeys.contains(key) { return [] }
        guard !presentationRules.isEmpty else { return presentation }
        let payload = PayloadPath.object(content.userInfoJson)
        return presentationRules.first { $0.matches(payload) }?.presentation ?? presentation
    }
}

/// A willPresent rule: when the payload has `path` (with the text `equals`, if given), answer `presentation`
/// (`[]`: show nothing, as a chat app does for the conversation on screen).
public struct PresentationRule: Sendable, Encodable, Equatable {
    /// A dotted payload path: `custom.a.type` (OneSignal's data), `type` (FCM's top-level data).
    public var path: String
    public var equals: String?
    public var presentation: [PresentationOption]

    public init(path: String, equals: String? = nil, presentation: [PresentationOption]) {
        self.path = path
        self.equals = equals
        self.presentation = presentation
    }

    func matches(_ payload: [String: Any]?) -> Bool {
        guard let equals else { return PayloadPath.value(at: path, in: payload) != nil }
        return PayloadPath.text(at: path, in: payload) == equals
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
