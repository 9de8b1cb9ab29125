import Testing

@testable import VirtualDevices

@Suite("AppProcess")
struct AppProcessTests {
    @Test func launchStartsAProcessOnlyWhenNoneRuns() {
        var p = AppProcess()
        #expect(p.bringToForeground() == [.started])
        #expect(p.bringToForeground() == [])
        p.moveToBackground()
        #expect(p.lifecycle == .background)
        #expect(p.bringToForeground() == [])
    }

    @Test func forceQuitIsRememberedAndRefusesBackgroundLaunchesUntilTheUserLaunches() {
        var p = AppProcess()
        _ = p.bringToForeground()
        #expect(p.forceQuitApp() == [.ended])
        #expect(p.forceQuit)
        #expect(p.launchInBackground() == nil)
        #expect(p.terminate() == [], "nothing runs")
        #expect(p.forceQuit, "a terminate does not clear a force-quit")
        #expect(p.bringToForeground() == [.started])
        #expect(!p.forceQuit)
    }

    @Test func terminatedAppIsRelaunchedInTheBackground() {
        var p = AppProcess()
        _ = p.bringToForeground()
        #expect(p.terminate() == [.ended])
        #expect(p.launchInBackground() == [.started])
        #expect(p.lifecycle == .background)
    }
}
