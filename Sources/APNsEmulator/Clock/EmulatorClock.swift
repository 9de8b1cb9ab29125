import Foundation
import Synchronization

/// Milliseconds since the UNIX epoch: the unit of every time on APNs' wire (410 `timestamp`) and ours.
public typealias Millis = Int64

/// The one source of "now" for every time rule (JWT age, 20-minute refresh, expiration, unregistration).
///
/// Real time by default; scenarios and tests use `ManualClock` so an hour passes in a call.
public protocol EmulatorClock: Sendable {
    func now() -> Millis
}

/// Wall-clock time, read with `clock_gettime` (every push reads it; `Date()` costs a Foundation round trip
/// and floating point for the same number).
public struct SystemClock: EmulatorClock {
    public init() {}
    public func now() -> Millis {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Millis(ts.tv_sec) * 1000 + Millis(ts.tv_nsec) / 1_000_000
    }
}

/// A clock that moves only when told to (or follows real time until frozen).
public final class ManualClock: EmulatorClock {
    private let current: Mutex<Millis>

    /// - Parameter start: initial time; defaults to the real current time.
    public init(start: Millis = SystemClock().now()) {
        current = Mutex(start)
    }

    public func now() -> Millis { current.withLock { $0 } }

    /// Moves time forward (never backward: APNs rules assume monotonic time).
    public func advance(byMillis delta: Millis) {
        precondition(delta >= 0, "ManualClock cannot go back in time")
        current.withLock { $0 += delta }
    }

    public func advance(bySeconds seconds: Double) {
        advance(byMillis: Millis((seconds * 1000).rounded()))
    }

    /// Sets an absolute time, which must not be earlier than now.
    public func set(to millis: Millis) {
        current.withLock { $0 = max($0, millis) }
    }
}
