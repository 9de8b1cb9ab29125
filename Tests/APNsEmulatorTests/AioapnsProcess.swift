import Foundation
import SpawnedProcess

/// Runs a helper program (python, the venv script) to completion without blocking a Swift concurrency thread,
/// and kills it when it overstays.
/// (`SpawnedProcess.runToCompletion`, output through temporary files).
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

    /// Runs `executable` with `arguments` and returns once it exited or was killed after `timeout` (SIGTERM, then
    /// SIGKILL 3 s later: pip ignoring SIGTERM must not hang the suite).
    /// - Parameters:
    ///   - executable: an absolute path, or a bare name looked up on `PATH`.
    ///   - currentDirectory: the working directory (the package root, so relative paths behave as in a shell).
    static func run(_ executable: String, _ arguments: [String], currentDirectory: URL? = nil,
                    timeout: Duration) async throws -> Output {
        let done = try await SpawnedProcess.runToCompletion(executable, arguments, directory: currentDirectory,
                                                            timeout: timeout)
        return Output(status: done.status, stdout: done.stdout, stderr: done.stderr, timedOut: done.timedOut)
    }
}
