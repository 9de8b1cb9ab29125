/// The app's notification authorization, shared app-wide (the local-notification add-on sees the same).
///
/// ```
///                    request(opts ∌ provisional) → prompt → answer
///   notDetermined ─────────────────────────────────────────────────► decided(granted)
///        │  request(opts ∋ provisional): no prompt                        ▲     │ settings toggle
///        └───────────────────────────────► provisional ──request(full)───┘     ▼
///                                                                        decided(!granted)
///   ephemeral (an App Clip, from install): allowed at once; requests answer granted, no prompt
/// ```
/// The prompt shows only once; later requests return the earlier choice. An empty option list requests
/// nothing: no prompt, and the answer is the current state.
struct AuthorizationMachine: Sendable {
    private enum State: Sendable, Equatable {
        case notDetermined
        case ephemeral
        case provisional(options: [AuthorizationOption])
        case decided(granted: Bool, options: [AuthorizationOption])
    }

    private var state = State.notDetermined {
        didSet { allowedMask = Self.mask(of: allowedOptions) }
    }

    init(ephemeral: Bool = false) {
        if ephemeral {
            state = .ephemeral
            allowedMask = Self.mask(of: allowedOptions)
        }
    }
    /// `allowedOptions` as bits (bit n for raw value n), kept in step with the state: the delivery path asks
    /// on every push and a `Set` would be built each time.
    private(set) var allowedMask: UInt16 = 0
    /// The user switched notifications off in Settings (macOS then answers requests with an error).
    private(set) var switchedOffInSettings = false

    var status: AuthorizationStatus {
        switch state {
        case .notDetermined: return .notDetermined
        case .ephemeral: return .ephemeral
        case .provisional: return .provisional
        case .decided(let granted, _): return granted ? .authorized : .denied
        }
    }

    /// Options the user allowed (empty unless authorized or provisional).
    var allowedOptions: Set<AuthorizationOption> {
        switch state {
        case .notDetermined: return []
        case .ephemeral: return [.alert, .sound, .badge]
        case .provisional(let options): return Set(options)
        case .decided(let granted, let options): return granted ? Set(options) : []
        }
    }

    /// Whether `option` is among the allowed options (a bit test).
    @inline(__always) func allows(_ option: AuthorizationOption) -> Bool {
        allowedMask & (1 << UInt16(option.rawValue)) != 0
    }

    static func mask(of options: Set<AuthorizationOption>) -> UInt16 {
        options.reduce(0) { $0 | (1 << UInt16($1.rawValue)) }
    }

    /// Whether notifications are allowed at all (alerts may still be off in the options).
    var isAllowed: Bool { status == .authorized || status == .provisional || status == .ephemeral }

    /// What a request does now.
    enum Decision: Equatable {
        /// Nothing asked or already decided: answer `granted` at once.
        case answer(granted: Bool)
        /// Show the system prompt; `answer(_:)` completes it.
        case prompt
    }

    mutating func request(_ options: [AuthorizationOption]) -> Decision {
        switch state {
        case .notDetermined where options.isEmpty:
            return .answer(granted: false)
        case .notDetermined where options.contains(.provisional):
            state = .provisional(options: options)
            return .answer(granted: true)
        case .notDetermined:
            return .prompt
        case .provisional where !options.isEmpty && !options.contains(.provisional):
            return .prompt
        case .provisional, .ephemeral:
            return .answer(granted: true)
        case .decided(let granted, _):
            return .answer(granted: granted)
        }
    }

    /// The user answered the prompt for `options`.
    mutating func answer(granted: Bool, options: [AuthorizationOption]) {
        state = .decided(granted: granted, options: options)
    }

    /// The user switched notifications on or off in Settings. Before any prompt, switching on means the
    /// app is authorized for alerts, sounds and badges (what Settings offers).
    mutating func setEnabledInSettings(_ enabled: Bool) {
        switchedOffInSettings = !enabled
        switch state {
        case .decided(_, let options) where !options.isEmpty:
            state = .decided(granted: enabled, options: options)
        case .provisional(let options):
            state = .decided(granted: enabled, options: options.filter { $0 != .provisional })
        default:
            state = .decided(granted: enabled, options: [.alert, .sound, .badge])
        }
    }
}
