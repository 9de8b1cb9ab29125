import APNsEmulator
import APNsProtocol

/// When background pushes woke the app within the last hour, for the device's per-hour budget.
///
/// Times arrive in order, so the expired ones are a prefix: dropping them moves a start index (amortised
/// O(1) a push), where filtering the array rescanned the whole hour on every background push. At most
/// `limit` are kept, the largest budget a device accepts, so `count >= budget` stays exact for any budget
/// while an unlimited one (0) no longer keeps one timestamp per push of a load test.
struct RecentWakes: Sendable {
    static let limit = DeviceConfiguration.maxBackgroundBudgetPerHour
    static let window: Millis = 3_600_000

    private var times: [Millis] = []
    private var start = 0

    /// Wakes in the hour up to `now`.
    mutating func count(at now: Millis) -> Int {
        while start < times.count && times[start] <= now - Self.window { start += 1 }
        compact()
        return times.count - start
    }

    /// A wake at `at`; a clock read that went back (wall time adjusted under a running manual clock) is
    /// recorded at the previous wake's time, keeping the order the pruning relies on.
    mutating func record(_ at: Millis) {
        times.append(max(at, times.last ?? at))
        if times.count - start > Self.limit { start += 1 }
        compact()
    }

    /// Gives back the dropped prefix once it is at least half the storage (so each time is moved at most
    /// once on average).
    private mutating func compact() {
        if start >= 64 && start * 2 >= times.count {
            times.removeFirst(start)
            start = 0
        }
    }
}
