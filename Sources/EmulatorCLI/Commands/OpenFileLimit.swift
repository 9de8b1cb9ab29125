#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit as `serve` uses it: raised to the hard limit (up to 2^20, as Go's runtime and
/// most servers do; a shell's soft default of 1,024 is far below what a load test opens), then shared out so that
/// neither port's flood can take the descriptors the other needs: a quarter for the control port's connections
/// (at most 10,000), a twentieth (at least 256) for state files and the rest, and what remains for APNs.
enum OpenFileLimit {
    /// Raises the soft limit to the hard one; returns the soft limit now in force.
    @discardableResult
    static func raise() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = min(limit.rlim_max, 1 << 20)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// How `limit` descriptors are shared: APNs connections, control-port connections.
    static func share(of limit: Int) -> (apns: Int, control: Int) {
        let control = max(16, min(10_000, limit / 4))
        let other = max(256, limit / 20)
        return (max(1, limit - control - other), control)
    }
}
