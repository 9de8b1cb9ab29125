#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit as `serve` uses it: raised to the hard limit (as Go's runtime and most servers
/// do; a shell's soft default of 1,024 is far below what a load test opens), and shared between APNs connections
/// and a reserve for the control port, state files and the rest, so a connection flood cannot take the last
/// descriptors and leave the control API unable to accept.
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

    /// APNs connections that leave a tenth of `limit` (at least 512) for everything else.
    static func connectionCeiling(for limit: Int) -> Int {
        max(1, limit - max(512, limit / 10))
    }
}
