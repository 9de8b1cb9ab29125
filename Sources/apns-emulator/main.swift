// Linked for its allocator: importing CJemalloc puts libjemalloc ahead of glibc in the executable's
// dependencies, so every malloc in the process (Swift runtime, Foundation, nghttp2, OpenSSL) is jemalloc's,
// as in nghttpd. With glibc's, the full push path cost ~3.5% more CPU (bench/load.sh's device path, median of
// 20 paired rounds; README, "Design notes").
import CJemalloc
import EmulatorCLI

#if canImport(Glibc)
import Glibc
#endif

/// Has jemalloc hand freed pages back to the system from its background thread. Otherwise it does so only
/// when something allocates: once 5,000 idle connections had closed, an otherwise idle emulator kept 210 MB
/// resident for good; with the thread it was down to 54 MB 10 s later. `MALLOC_CONF` naming `background_thread`
/// decides instead.
func purgeInBackground() {
    if let conf = getenv("MALLOC_CONF"), String(cString: conf).contains("background_thread") { return }
    var on = true
    let status = mallctl("background_thread", nil, nil, &on, MemoryLayout<Bool>.size)
    if status != 0 {
        let warning = "apns-emulator: warning: jemalloc's background thread did not start (mallctl error \(status));"
            + " freed memory returns to the system only as the process allocates\n"
        _ = warning.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    }
}

purgeInBackground()
await EmulatorCLIMain.main()
