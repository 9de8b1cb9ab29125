import APNsProtocol
import Foundation
import H2Transport
import Synchronization

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
    public func now() -> Millis { wallMillis() }
}

/// A controllable clock: frozen (moves only when told to) or running (real time plus whatever it was
/// advanced by). Scenarios and tests freeze it so an hour passes in a call; a running one still accepts
/// `advance` to skip ahead.
public final class ManualClock: EmulatorClock {
    private struct State {
        /// Frozen: the time itself. Running: the offset added to the real time.
        var value: Millis
        var frozen: Bool
    }

    private let state: Mutex<State>

    /// - Parameters:
    ///   - start: initial time; defaults to the real current time.
    ///   - frozen: whether time stands still until advanced (the default) or runs from `start`.
    public init(start: Millis = SystemClock().now(), frozen: Bool = true) {
        state = Mutex(State(value: frozen ? start : start - SystemClock().now(), frozen: frozen))
    }

    public func now() -> Millis {
        state.withLock { $0.frozen ? $0.value : SystemClock().now() + $0.value }
    }

    /// Whether time stands still.
    public var isFrozen: Bool { state.withLock { $0.frozen } }

    /// Moves time forward (never backward: APNs rules assume monotonic time).
    public func advance(byMillis delta: Millis) {
        precondition(delta >= 0, "ManualClock cannot go back in time")
        state.withLock { $0.value += delta }
    }

    public func advance(bySeconds seconds: Double) {
        advance(byMillis: Millis((seconds * 1000).rounded()))
    }

    /// Sets an absolute time, which must not be earlier than now.
    public func set(to millis: Millis) {
        state.withLock { s in
            let current = s.frozen ? s.value : SystemClock().now() + s.value
            let target = max(current, millis)
            s.value = s.frozen ? target : target - SystemClock().now()
        }
    }

    /// Stops time where it is.
    public func freeze() {
        state.withLock { s in
            guard !s.frozen else { return }
            s = State(value: SystemClock().now() + s.value, frozen: true)
        }
    }

    /// Lets time run again from where it stands (no jump to the real time).
    public func resume() {
        state.withLock { s in
            guard s.frozen else { return }
            s = State(value: s.value - SystemClock().now(), frozen: false)
        }
    }
}
