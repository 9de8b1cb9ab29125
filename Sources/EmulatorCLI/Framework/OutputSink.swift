#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command writes text: the real stdout/stderr, or a buffer in tests.
///
/// A closure rather than `TextOutputStream` so one value can be shared across tasks, and so the standard streams
/// can bypass stdio buffering: `serve` prints its `ready:` line into a pipe that a CI script is waiting on, and a
/// line stuck in a 4 KB buffer would hang that script.
public struct OutputSink: Sendable {
    private let sink: @Sendable (String) -> Void

    /// - Parameter write: Receives text exactly as written, newlines included.
    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.sink = write
    }

    /// Writes `text` as is.
    ///
    /// - Parameter text: The text to write.
    public func write(_ text: String) {
        sink(text)
    }

    /// Writes `line` followed by a newline.
    ///
    /// - Parameter line: The line without its newline.
    public func writeLine(_ line: String = "") {
        sink(line + "\n")
    }

    /// The process's standard output, unbuffered.
    public static let standardOutput = OutputSink { writeAll($0, to: STDOUT_FILENO) }
    /// The process's standard error, unbuffered.
    public static let standardError = OutputSink { writeAll($0, to: STDERR_FILENO) }
}

/// Loops over short writes and EINTR; other errors (a closed pipe, with SIGPIPE ignored) drop the text, since there
/// is nobody left to tell. A free function so `write` means write(2), not `OutputSink.write`.
private func writeAll(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        if written > 0 {
            bytes = bytes.dropFirst(written)
        } else if written < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}
