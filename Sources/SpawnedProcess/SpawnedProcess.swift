import CShims
import Foundation
import Synchronization

/// A child process with the part of `Foundation.Process`'s API the tests use, started with `posix_spawn`.
///
/// ### Why not Foundation.Process
/// On Swift 6.3.1, `Process.run()` intermittently crashes reading `/proc/self/fd`
/// (swift-corelibs-foundation PR #5472: a 256-byte over-read of `d_name`), more often the more descriptors the
/// process holds — and test processes hold many sockets. This spawns through `CShims_spawn_io`, which never
/// reads that directory, resets signal dispositions, and closes inherited descriptors in the child.
///
/// `@unchecked Sendable`: the only mutable state (`status`) is behind a `Mutex`; the configuration is set
/// before `run()` and read only by it.
public final class SpawnedProcess: @unchecked Sendable {
    public var executableURL: URL?
    public var arguments: [String] = []
    public var environment: [String: String]?
    public var currentDirectoryURL: URL?
    /// A `Pipe` or `FileHandle` (nil: inherit).
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?
    /// Called once the child has ended, on a thread of its own (set before `run`).
    public var terminationHandler: (@Sendable (SpawnedProcess) -> Void)?

    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    public private(set) var processIdentifier: Int32 = 0
    private let status = Mutex<Int32?>(nil)

    public init() {}

    public func run() throws {
        guard let path = executableURL?.path else { throw SpawnError("no executable") }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for p in argv { free(p) }
            for p in env { free(p) }
        }
        // Foundation's `FileHandle.nullDevice` has no descriptor on Linux; the child gets /dev/null for it instead
        // of the parent's stream.
        let devNull = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if devNull >= 0 { close(devNull) } }
        let inFD = Self.descriptor(standardInput, reading: true, devNull: devNull)
        let outFD = Self.descriptor(standardOutput, reading: false, devNull: devNull)
        let errFD = Self.descriptor(standardError, reading: false, devNull: devNull)
        var pid: pid_t = 0
        let rc: Int32
        if let cwd = currentDirectoryURL?.path {
            rc = cwd.withCString { CShims_spawn_io(&pid, path, argv, env, $0, inFD, outFD, errFD) }
        } else {
            rc = CShims_spawn_io(&pid, path, argv, env, nil, inFD, outFD, errFD)
        }
        guard rc == 0 else { throw SpawnError("cannot run \(path): \(String(cString: strerror(rc)))") }
        processIdentifier = pid
        // The parent's copies of the child's pipe ends must go, or readers never see end-of-file.
        (standardInput as? Pipe).map { try? $0.fileHandleForReading.close() }
        (standardOutput as? Pipe).map { try? $0.fileHandleForWriting.close() }
        if let err = standardError as? Pipe, (standardOutput as? Pipe) !== err { try? err.fileHandleForWriting.close() }
        if let handler = terminationHandler {
            Thread.detachNewThread { [self] in
                waitUntilExit()
                handler(self)
            }
        }
    }

    private static func descriptor(_ handle: Any?, reading: Bool, devNull: Int32) -> Int32 {
        switch handle {
        case let pipe as Pipe: return reading ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
        case let file as FileHandle: return file === FileHandle.nullDevice || file.fileDescriptor < 0 ? devNull : file.fileDescriptor
        default: return -1
        }
    }

    /// Reaps the child if it ended (without blocking); true while it runs.
    public var isRunning: Bool {
        status.withLock { s in
            if s != nil { return false }
            var raw: Int32 = 0
            let r = waitpid(processIdentifier, &raw, WNOHANG)
            if r == processIdentifier { s = raw; return false }
            return r == 0
        }
    }

    /// Blocks until the child ends.
    ///
    /// Waits without reaping (`WNOWAIT`) and lets `isRunning` reap under the lock: with two waiters (a
    /// termination handler and a caller), a blocking `waitpid` in each let the loser return on ECHILD before the
    /// winner had stored the status, which then read as 0.
    public func waitUntilExit() {
        while isRunning {
            var info = siginfo_t()
            if waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) < 0 && errno != EINTR && errno != ECHILD {
                return
            }
        }
    }

    /// The exit status, or the signal that ended it (see `terminationReason`).
    public var terminationStatus: Int32 {
        let raw = status.withLock { $0 } ?? 0
        return (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    public var terminationReason: TerminationReason {
        let raw = status.withLock { $0 } ?? 0
        return (raw & 0x7f) == 0 ? .exit : .uncaughtSignal
    }

    /// Sends SIGTERM.
    public func terminate() {
        if processIdentifier > 0 { kill(processIdentifier, SIGTERM) }
    }

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
        init(_ d: String) { description = d }
    }
}
