/// What must hold after a step; each keeps the node it came from, so a failure names file:line.
public struct Expectation: Sendable {
    public enum Kind: Sendable {
        /// The step's own result (call record, push response, waited push): a subset match.
        case result
        /// `GET` an app: its state (lifecycle, badge, authorizationStatus, token…).
        case app(AppRef)
        /// One of the app's ordered logs: plugin events, plugin calls, or what its delegate forwarded.
        case events(AppRef, mode: EventsMode, log: AppLogKind = .events)
        /// GetColdStartNotification is called (consuming it) and its notification matched; `empty`
        /// expects the empty notification.
        case coldStart(AppRef)
        /// The same notification read without consuming it (the app view's `coldStartPeek`).
        case coldStartPeek(AppRef)
        /// The badge.
        case badge(AppRef)
        /// The notification centre (`notifications`, `groups`, `badge`): a subset match, or `count`.
        case notifications(AppRef)
        /// A push's fate on the devices: the last step's `fate`, or the whole list of steps.
        case fate(push: String)
        /// The app's token: registered in the emulator, its environment, its length.
        case token(AppRef)
        /// The managed push SDK in the app (`GET …/sdk`: collection, syncState, sessionCount…): a subset match.
        case sdk(AppRef)
    }

    /// An app's ordered log, read with `GET …/<path>` under `key`.
    public enum AppLogKind: String, Sendable, CaseIterable {
        case events, calls, forwards
        /// What the managed SDK sent its ingest, and why it did or did not for each callback.
        case sdkRecords, sdkDecisions

        var path: String {
            switch self {
            case .sdkRecords, .sdkDecisions: return "sdk"
            default: return rawValue
            }
        }

        var key: String {
            switch self {
            case .sdkRecords: return "records"
            case .sdkDecisions: return "decisions"
            default: return rawValue
            }
        }

        /// The field a bare string in the expected list names (`- TokenRefreshed`, `- GetToken`).
        var nameField: String {
            switch self {
            case .events: return "type"
            case .calls: return "call"
            case .forwards: return "callback"
            case .sdkRecords: return "type"
            case .sdkDecisions: return "outcome"
            }
        }

        /// One entry, for messages.
        var noun: String {
            switch self {
            case .events: return "event"
            case .calls: return "call"
            case .forwards: return "forward"
            case .sdkRecords: return "record"
            case .sdkDecisions: return "decision"
            }
        }
    }

    public enum EventsMode: String, Sendable, CaseIterable {
        /// Exactly these events, in this order.
        case exactly
        /// These events, in this relative order, others allowed between.
        case ordered
        /// Each of these events, in any order.
        case unordered
        /// The same as `unordered`: the list contains these.
        case contains
        /// None of these events.
        case none
    }

    public var kind: Kind
    /// The expected value as written (matched with `JSONMatcher`).
    public var expected: YAMLNode
    public var mark: YAMLNode.Mark
    /// The key as written, for messages (`expect.badge`).
    public var label: String
}
