import Foundation
import SpawnedProcess

#if canImport(Glibc)
import Glibc
#endif

/// Runs a tool (git, swift, a built executable) to completion with stdout and stderr interleaved. On timeout
/// the program gets SIGINT (what `swift build` cancels its compiler jobs on, as for Ctrl-C), then SIGKILL 10 s
/// later if it is still there.
func runTool(_ executable: String, _ arguments: [String], in directory: URL, environment: [String: String?] = [:],
             timeout: Duration) async throws -> SpawnedProcess.Completion {
    try await SpawnedProcess.runToCompletion(executable, arguments, directory: directory, environment: environment,
                                             mergeOutput: true, timeout: timeout, stopSignal: SIGINT, grace: .seconds(10))
}

/// Runs blocking work (file copies) on a thread of its own so the cooperative pool keeps serving other tests.
func offPool<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
    try await withCheckedThrowingContinuation { (cont: CheckedContinuation<R, any Error>) in
        Thread.detachNewThread { cont.resume(with: Result { try body() }) }
    }
}
