import Foundation
import SpawnedProcess
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs a helper program (python, the venv script) to completion without blocking a Swift concurrency thread,
/// and kills it when it overstays.
///
/// Output goes to temporary files rather than pipes: a child that writes more than a pipe holds (pip's
/// progress) would otherwise block until someone reads, which a waiting test never does.
struct AioapnsProcess {
    /// What the program left behind.
    struct Output: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
        /// True when the timeout ended the program (its status is then the signal's).
        var timedOut: Bool

        /// Both streams, for failure messages.
        var transcript: String {
            let killed = timedOut ? " (killed after the timeout)" : ""
            return "exit \(status)\(killed)\n--- stdout ---\n\(stdout)\n--- stderr ---\n\(stderr)"
        }
    }

    /// Runs `executable` with `arguments` and returns once it exited or was killed after `timeout`.
    /// - Parameters:
    ///   - executable: an absolute path, or a bare name looked up on `PATH` (through `/usr/bin/env`).
    ///   - currentDirectory: the working directory (the package root, so relative paths behave as in a shell).
    static func run(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil,
                    timeout: Duration) async throws -> Output {
        let scratch = FileManager.default.temporaryDirectory
            .appendingPathComponent("aioapns-process-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)

        let process = SpawnedProcess()
        if executable.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [executable] + arguments
        }
        process.currentDirectoryURL = currentDirectory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle

        let timedOut = Flag()
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            timedOut.value.store(true, ordering: .relaxed)
            process.terminate()
            // pip ignoring SIGTERM must not hang the suite.
            try await Task.sleep(for: .seconds(3))
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
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
        try? errHandle.close()

        let stdout = text(of: outURL)
        let stderr = text(of: errURL)
        let status = launched ? process.terminationStatus : 127  // 127: the shell's "command not found"
        return Output(status: status, stdout: stdout, stderr: stderr, timedOut: timedOut.value.load(ordering: .relaxed))
    }

    /// A file's text, "" for an empty one without reading it: Foundation's reader (swift-foundation's
    /// readBytesFromFile, Swift 6.3.1 on Linux) leaks the 4 KiB buffer it allocates for a 0-byte file, which
    /// LeakSanitizer reports under `make sanitize`; a silent program leaves an empty stdout or stderr.
    private static func text(of url: URL) -> String {
        if (try? url.resourceValues(forKeys: [.fileSizeKey]).fileSize) == 0 { return "" }
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// Set by the watchdog; a class so the escaping watchdog closure can share it.
    private final class Flag: Sendable {
        let value = Atomic(false)
    }
}
