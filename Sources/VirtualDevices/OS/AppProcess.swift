/// The app's process as the OS runs it: one small machine, so "foreground and force-quit" cannot be
/// represented and every start and end of the process is an explicit action.
///
/// ```
///   notRunning(forceQuit) ──launch──────────────► foreground ◄──foreground── background
///        │   └─(!forceQuit) background launch ──► background ──background(from foreground)┘
///        ▲                                            │
///        └──────── terminate / forceQuit ◄────────────┘ (from either running state)
/// ```
/// A force-quit is remembered until the user launches the app again: until then background pushes are
/// dropped (iOS does not relaunch an app the user swiped away).
struct AppProcess: Sendable, Equatable {
    private enum State: Sendable, Equatable {
        case notRunning(forceQuit: Bool)
        case background
        case foreground
    }

    /// What the owner must do after a transition.
    enum Action: Sendable, Equatable {
        /// A new process started (the plugin starts over, the app sets its delegates again).
        case started
        /// The process ended (pending calls die with it).
        case ended
    }

    private var state = State.notRunning(forceQuit: false)

    var lifecycle: AppLifecycle {
        switch state {
        case .notRunning: return .notRunning
        case .background: return .background
        case .foreground: return .foreground
        }
    }

    var forceQuit: Bool { state == .notRunning(forceQuit: true) }
    var isRunning: Bool { lifecycle != .notRunning }

    /// The user opens the app (home screen, a tap on a notification, a foreground action).
    mutating func bringToForeground() -> [Action] {
        defer { state = .foreground }
        return isRunning ? [] : [.started]
    }

    /// The OS starts the app in the background (a background push, a background action). Refused after a
    /// force-quit; returns nil then.
    mutating func launchInBackground() -> [Action]? {
        switch state {
        case .notRunning(forceQuit: true): return nil
        case .notRunning: state = .background; return [.started]
        case .background, .foreground: return []
        }
    }

    /// Home button / app switcher: a foreground app is suspended; otherwise nothing changes.
    mutating func moveToBackground() {
        if state == .foreground { state = .background }
    }

    /// The user swipes the app away.
    mutating func forceQuitApp() -> [Action] {
        defer { state = .notRunning(forceQuit: true) }
        return isRunning ? [.ended] : []
    }

    /// The system ends the process (memory pressure, a restore). A force-quit stays remembered.
    mutating func terminate() -> [Action] {
        guard isRunning else { return [] }
        state = .notRunning(forceQuit: false)
        return [.ended]
    }
}
