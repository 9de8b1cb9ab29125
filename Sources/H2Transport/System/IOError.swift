#if canImport(Glibc)
import Glibc
#endif

/// A failed system call: the errno and the call that set it, so a log line names the real culprit.
public struct IOError: Error, CustomStringConvertible, Sendable {
    public let errno: Int32
    public let function: String

    public init(errno: Int32, function: String) {
        self.errno = errno
        self.function = function
    }

    public var description: String {
        "\(function) failed: \(reason)"
    }

    /// What went wrong without naming the call, for a caller whose own message already names it (an
    /// `H2ClientError.connectFailed` would otherwise read "connect failed: connect failed: …").
    public var reason: String {
        "\(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// What a non-blocking call achieved: done (with a value) or "try again when the fd is ready".
@usableFromInline
enum IOResult<T> {
    case processed(T)
    case wouldBlock
}

/// Runs a syscall, retrying on EINTR, turning EAGAIN into `.wouldBlock` and any other failure into `IOError`.
///
/// Errnos that can only mean a bug in this process (EBADF, EFAULT) trap, as NIO's `System.swift` does:
/// continuing would act on a descriptor that may already belong to someone else.
@inline(__always)
func syscall<T: FixedWidthInteger>(
    _ function: @autoclosure () -> String, blocking: Bool = false, _ body: () -> T
) throws(IOError) -> IOResult<T> {
    while true {
        let result = body()
        if result >= 0 { return .processed(result) }
        let err = Glibc.errno
        switch err {
        case EINTR:
            continue
        case EAGAIN where !blocking:
            return .wouldBlock
        case EBADF, EFAULT:
            preconditionFailure("\(function()) failed with errno \(err): a bug, not an I/O condition")
        default:
            throw IOError(errno: err, function: function())
        }
    }
}
