import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The standard `process_*` series Prometheus clients export, read from `/proc/self` (Linux); empty elsewhere.
enum ProcessMetrics {
    static func lines() -> [String] {
        #if os(Linux)
            var out: [String] = []
            func gauge(_ name: String, _ type: String, _ help: String, _ value: String) {
                out += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)", "\(name) \(value)"]
            }
            let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
            // /proc/self/stat: the fields after the command name (in parentheses, which may hold spaces).
            if let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
               let close = stat.lastIndex(of: ")") {
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                // fields[0] is the state (field 3 of stat(5)): utime is field 14, stime 15, starttime 22, vsize 23.
                if fields.count > 20, let utime = Double(fields[11]), let stime = Double(fields[12]) {
                    gauge("process_cpu_seconds_total", "counter", "User and system CPU time spent, in seconds.",
                          String((utime + stime) / ticks))
                    if let start = Double(fields[19]), let boot = bootTime() {
                        gauge("process_start_time_seconds", "gauge", "Start time of the process since the UNIX epoch, in seconds.",
                              String(Int64(boot + start / ticks)))
                    }
                    if let vsize = fields.count > 20 ? fields[20] : nil {
                        gauge("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", String(vsize))
                    }
                }
            }
            if let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
               let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) {
                gauge("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
                      String(pages * Int(sysconf(Int32(_SC_PAGESIZE)))))
            }
            if let fds = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
                gauge("process_open_fds", "gauge", "Number of open file descriptors.", String(fds.count))
            }
            var limit = rlimit()
            if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
                gauge("process_max_fds", "gauge", "Maximum number of open file descriptors.", String(limit.rlim_cur))
            }
            return out
        #else
            return []
        #endif
    }

    /// Seconds since the epoch at boot (`btime` in /proc/stat).
    private static func bootTime() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/stat", encoding: .utf8) else { return nil }
        for line in stat.split(separator: "\n") where line.hasPrefix("btime ") {
            return Double(line.dropFirst("btime ".count))
        }
        return nil
    }
}
