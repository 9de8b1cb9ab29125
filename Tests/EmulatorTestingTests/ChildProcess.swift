import Foundation
import SpawnedProcess

#if canImport(Glibc)
import Glibc
#endif

/// Runs a tool (git, swift, a built executable) to completion without blocking a Swift concurrency thread, and
/// stops it when it overstays.
/// (`SpawnedProcess.runToCompletion`, output through temporary files).
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
    ///   - executable: an absolute path, or a bare name looked up on `PATH`.
    ///   - environment: changes to this process's environment (nil values remove a variable).
    static func run(_ executable: String, _ arguments: [String], in directory: URL, environment: [String: String?] = [:],
                    timeout: Duration) async throws -> Output {
        let done = try await SpawnedProcess.runToCompletion(
            executable, arguments, directory: directory, environment: environment, mergeOutput: true, timeout: timeout,
            stopSignal: SIGINT, grace: .seconds(10))
        return Output(command: ([executable] + arguments).joined(separator: " "), status: done.status,
                      output: done.stdout, timedOut: done.timedOut)
    }
}

/// Runs blocking work (file copies) on a thread of its own so the cooperative pool keeps serving other tests.
func offPool<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
    try await withCheckedThrowingContinuation { (cont: CheckedContinuation<R, any Error>) in
        Thread.detachNewThread { cont.resume(with: Result { try body() }) }
    }
}
