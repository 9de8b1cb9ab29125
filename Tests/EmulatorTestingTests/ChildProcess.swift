import Foundation
import SpawnedProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs a tool (git, swift, a built executable) to completion without blocking a Swift concurrency thread, and
/// stops it when it overstays.
///
/// Output goes to a temporary file rather than a pipe: `swift build` writes more than a pipe holds, and a waiting
/// test never reads until the end.
struct ChildProcess {
    /// What the program left behind.
    struct Output: Sendable {
        var command: String
        var status: Int32
        /// stdout and stderr, interleaved as written.
        var output: String
        /// True when the timeout ended the program (its status is then the signal's).
        var timedOut: Bool

        /// The command and everything it printed, for failure messages.
        var transcript: String {
            let killed = timedOut ? " (stopped after the timeout)" : ""
            return "$ \(command)\nexit \(status)\(killed)\n\(output)"
        }
    }

    /// Runs `executable` with `arguments` and returns once it exited or was stopped after `timeout`.
    ///
    /// On timeout the program gets SIGINT (what `swift build` cancels its compiler jobs on, as for Ctrl-C), then
    /// SIGKILL 10 s later if it is still there.
    /// - Parameters:
    ///   - executable: an absolute path, or a bare name looked up on `PATH` (through `/usr/bin/env`).
    ///   - environment: changes to this process's environment (nil values remove a variable).
    static func run(_ executable: String, _ arguments: [String], in directory: URL, environment: [String: String?] = [:],
                    timeout: Duration) async throws -> Output {
        let logURL = FileManager.default.temporaryDirectory
            .appendingPathComponent("child-process-\(UUID().uuidString).log")
        try Data().write(to: logURL)
        defer { try? FileManager.default.removeItem(at: logURL) }
        let log = try FileHandle(forWritingTo: logURL)

        let process = SpawnedProcess()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        for (name, value) in environment { env[name] = value }
        process.environment = env
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = log
        process.standardError = log

        let timedOut = Flag()
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            // Never kill(0, …) (our own process group): a process that did not start has no id.
            let pid = process.processIdentifier
            guard pid > 0 else { return }
            timedOut.value.store(true, ordering: .relaxed)
            kill(pid, SIGINT)
            try await Task.sleep(for: .seconds(10))
            if process.isRunning { kill(pid, SIGKILL) }
        }
        var launched = true
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            // Set before `run`, so an instant exit cannot slip past the handler.
            process.terminationHandler = { _ in done.resume() }
            do {
                try process.run()
            } catch {
                // Never launched, so the handler will not run.
                launched = false
                try? log.write(contentsOf: Data("could not start \(executable): \(error)\n".utf8))
                done.resume()
            }
        }
        watchdog.cancel()
        try? log.close()

        // Not through Foundation when empty: its reader leaks a 4 KiB buffer per 0-byte file (Swift 6.3.1, Linux).
        let empty = (try? logURL.resourceValues(forKeys: [.fileSizeKey]).fileSize) == 0
        let output = empty ? "" : (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return Output(command: ([executable] + arguments).joined(separator: " "),
                      status: launched ? process.terminationStatus : 127,  // 127: the shell's "command not found"
                      output: output, timedOut: timedOut.value.load(ordering: .relaxed))
    }

    /// Set by the watchdog; a class so the escaping watchdog closure can share it.
    private final class Flag: Sendable {
        let value = Atomic(false)
    }
}

/// Runs blocking work (file copies) on a thread of its own so the cooperative pool keeps serving other tests.
func offPool<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
    try await withCheckedThrowingContinuation { (cont: CheckedContinuation<R, any Error>) in
        Thread.detachNewThread { cont.resume(with: Result { try body() }) }
    }
}
