/// What a notification's interruption level lets the OS do when it presents it (the app not in the
/// foreground), given Focus and the ring/silent switch.
///
/// | level | lights the screen (banner) | sound |
/// |---|---|---|
/// | passive | never (list only) | never |
/// | active (and unspecified) | unless a Focus is on | unless a Focus is on or the device is silent |
/// | timeSensitive | yes, through a Focus | unless silent |
/// | critical, authorized | yes | yes, through Focus and silent |
/// | critical, CriticalAlert not authorized | as active | as active |
///
/// In the foreground the app's `willPresent` options decide the banner and the list (what Apple documents for
/// a foreground notification); the silent switch still mutes every sound but an authorized critical alert's.
enum InterruptionRules {
    struct Allowance: Equatable {
        var banner: Bool
        var sound: Bool
        /// Why the level took something away, for the fate's reason (nil when it took nothing).
        var note: String?
    }

    static func allowance(_ level: InterruptionLevel, focus: Bool, muted: Bool, criticalAuthorized: Bool,
                          foreground: Bool) -> Allowance {
        if level == .critical && criticalAuthorized { return Allowance(banner: true, sound: true, note: nil) }
        if foreground {
            return Allowance(banner: true, sound: !muted, note: muted ? "silent: no sound" : nil)
        }
        switch level {
        case .passive:
            return Allowance(banner: false, sound: false, note: "passive: no banner, no sound")
        case .timeSensitive:
            return Allowance(banner: true, sound: !muted, note: muted ? "silent: no sound" : nil)
        case .active, .unspecified, .critical:
            if focus { return Allowance(banner: false, sound: false, note: "Focus: delivered quietly") }
            return Allowance(banner: true, sound: !muted, note: muted ? "silent: no sound" : nil)
        }
    }
}
