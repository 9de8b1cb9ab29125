#if canImport(Glibc)
import Glibc
#endif

/// Nanoseconds on CLOCK_MONOTONIC: the event loop's only notion of time, immune to wall-clock jumps.
/// Public so layers above time their work on the same clock with one vDSO call (`DispatchTime.now()` adds
/// a libdispatch round trip for the same number). Inlinable, so callers in other modules make no extra call.
@inlinable
public func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Milliseconds since the UNIX epoch on CLOCK_REALTIME (the event loop stamps each wakeup with it).
@inlinable
public func wallMillis() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) &* 1000 &+ Int64(ts.tv_nsec) / 1_000_000
}

extension Duration {
    /// The duration in whole nanoseconds, clamped at zero (timers never fire in the past).
    package var nanosecondsClamped: UInt64 {
        let (seconds, attoseconds) = components
        if seconds < 0 { return 0 }
        return UInt64(seconds) &* 1_000_000_000 &+ UInt64(attoseconds / 1_000_000_000)
    }
}
