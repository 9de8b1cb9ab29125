/// Where the app's process is, as the OS sees it.
///
/// ```
///   notRunning ──launch / tap──► foreground ◄──foreground── background
///       ▲  └──background push / background action──► background ──┘
///       └──────────── terminate / force-quit ◄──────── (any) ───────┘
/// ```
/// A force-quit is remembered until the user launches the app again: until then background pushes are
/// dropped (iOS does not relaunch an app the user swiped away).
public enum AppLifecycle: String, Sendable, Codable, CaseIterable {
    case notRunning
    case background
    case foreground
}
