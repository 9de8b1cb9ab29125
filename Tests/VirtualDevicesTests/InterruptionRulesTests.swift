import Testing

@testable import VirtualDevices

/// The interruption-level table: what each level may do in the background, under Focus and on silent.
@Suite("InterruptionRules")
struct InterruptionRulesTests {
    private func allow(_ level: InterruptionLevel, focus: Bool = false, muted: Bool = false, critical: Bool = false,
                       foreground: Bool = false) -> (Bool, Bool) {
        let a = InterruptionRules.allowance(level, focus: focus, muted: muted, criticalAuthorized: critical,
                                            foreground: foreground)
        return (a.banner, a.sound)
    }

    @Test func passiveNeverLightsTheScreenOrSounds() {
        #expect(allow(.passive) == (false, false))
        #expect(allow(.passive, critical: true) == (false, false))
    }

    @Test func activeIsQuietedByFocusAndMutedBySilent() {
        #expect(allow(.active) == (true, true))
        #expect(allow(.active, focus: true) == (false, false))
        #expect(allow(.active, muted: true) == (true, false))
        #expect(allow(.unspecified, focus: true) == (false, false))
    }

    @Test func timeSensitiveBreaksThroughFocusButNotSilent() {
        #expect(allow(.timeSensitive, focus: true) == (true, true))
        #expect(allow(.timeSensitive, focus: true, muted: true) == (true, false))
    }

    @Test func onlyAnAuthorizedCriticalAlertSoundsThroughBoth() {
        #expect(allow(.critical, focus: true, muted: true, critical: true) == (true, true))
        #expect(allow(.critical, focus: true, muted: true) == (false, false), "without CriticalAlert: as Active")
    }

    @Test func inTheForegroundOnlyTheSilentSwitchApplies() {
        #expect(allow(.passive, focus: true, foreground: true) == (true, true), "willPresent decides there")
        #expect(allow(.active, muted: true, foreground: true) == (true, false))
        #expect(allow(.critical, muted: true, critical: true, foreground: true) == (true, true))
    }
}
