/// Whether the app's notification-centre delegate (the one forwarding to the plugin) is in place.
///
/// A third-party package (Unity Mobile Notifications) installs its own delegate during the first
/// permission prompt and drops the app's: from then on willPresent/didReceive never reach the plugin,
/// unless the app re-attaches its delegate afterwards.
///
/// ```
///   attached ──first prompt, third party present──► replacedByThirdParty ──reattach──► attached
/// ```
struct DelegateAttachment: Sendable, Equatable {
    enum State: String, Sendable, Codable {
        case attached
        case replacedByThirdParty
    }

    private(set) var state = State.attached
    private var prompted = false

    /// The permission prompt is shown; `replacement` says what the app's third-party package does.
    mutating func permissionPromptShown(replacement: ThirdPartyDelegate) {
        guard !prompted else { return }
        prompted = true
        switch replacement {
        case .none: break
        case .replaces: state = .replacedByThirdParty
        // The app sets its delegate again right after the prompt: events keep flowing.
        case .replacesThenReattached: state = .attached
        }
    }

    /// The app sets its delegate again (a control action, as an app fix would).
    mutating func reattach() {
        state = .attached
    }

    /// A new process sets the app's delegate in didFinishLaunching again. Decision: a third-party
    /// replacement lasts for the process it happened in (the prompt, and so the swap, never comes again).
    mutating func processStarted() {
        state = .attached
    }
}
