import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension SpawnedProcess {
    /// What a program run to completion left behind.
    public struct Completion: Sendable {
        public var status: Int32
        /// stdout, with stderr interleaved into it when they were merged.
        public var stdout: String
        /// stderr ("" when merged into stdout).
        public var stderr: String
        /// True when the timeout ended the program (its status is then the signal's).
        public var timedOut: Bool

        /// The exit and everything printed, for failure messages.
        public var transcript: String {
            let stopped = timedOut ? " (stopped after the timeout)" : ""
            let streams = stderr.isEmpty ? stdout : "--- stdout ---\n\(stdout)\n--- stderr ---\n\(stderr)"
            return "exit \(status)\(stopped)\n\(streams)"
        }
    }

    /// Runs `executable` to completion without blocking a Swift concurrency thread, and stops it when it overstays:
    /// `stopSignal` after `timeout`, then SIGKILL after `grace`. Output goes to temporary files rather than pipes:
    /// a child that writes more than a pipe holds would block until someone reads, which a waiting test never does.
    /// - Parameters:
    ///   - executable: an absolute path, or a bare name looked up on `PATH` (through `/usr/bin/env`).
    ///   - environment: changes to this process's environment (nil values remove a variable).
    ///   - mergeOutput: stderr goes into stdout, interleaved as written.
    /// - Returns: status 127 (the shell's "command not found") when the program could not be started.
    public static func runToCompletion(_ executable: String, _ arguments: [String], directory: URL? = nil,
                                       environment: [String: String?] = [:], mergeOutput: Bool = false,
                                       timeout: Duration, stopSignal: Int32 = SIGTERM,
                                       grace: Duration = .seconds(3)) async throws -> Completion {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("spawned-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout"), errURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = mergeOutput ? outHandle : try FileHandle(forWritingTo: errURL)

        let process = SpawnedProcess()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        if !environment.isEmpty {
            var env = ProcessInfo.processInfo.environment
            for (name, value) in environment { env[name] = value }
            process.environment = env
        }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle

        let timedOut = TimeoutFlag()
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            // Never kill(0, …) (our own process group): a process that did not start has no id.
            let pid = process.processIdentifier
            guard pid > 0 else { return }
            timedOut.value.store(true, ordering: .relaxed)
            kill(pid, stopSignal)
            try await Task.sleep(for: grace)
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
                try? errHandle.write(contentsOf: Data("could not start \(executable): \(error)\n".utf8))
                done.resume()
            }
        }
        watchdog.cancel()
        try? outHandle.close()
        if !mergeOutput { try? errHandle.close() }
        return Completion(status: launched ? process.terminationStatus : 127, stdout: text(of: outURL),
                          stderr: mergeOutput ? "" : text(of: errURL), timedOut: timedOut.value.load(ordering: .relaxed))
    }

    /// Set by the watchdog; a class so the escaping watchdog closure can share it.
    private final class TimeoutFlag: Sendable {
        let value = Atomic(false)
    }

    /// A file's text, "" for an empty one without reading it: Foundation's reader (Swift 6.3.1 on Linux) leaks the
    /// 4 KiB buffer it allocates for a 0-byte file, which LeakSanitizer reports.
    private static func text(of url: URL) -> String {
        if (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) == 0 { return "" }
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }
}
