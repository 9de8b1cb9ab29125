/// The process's exit status, named so call sites say what they mean rather than which number.
///
/// A struct over the raw value, like swift-argument-parser's, so a command can pass through a child's status
/// (a future `exec`) without a case for every number. The three named codes are the contract CI scripts rely on.
public struct ExitCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The status handed to `exit(3)`.
    public var rawValue: Int32

    /// - Parameter rawValue: The status handed to `exit(3)`.
    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The command did what was asked.
    public static let success = ExitCode(rawValue: 0)
    /// The command ran but failed (a server that would not start, certificates that could not be written).
    public static let failure = ExitCode(rawValue: 1)
    /// The command line itself was wrong; `EX_USAGE` from sysexits(3), so scripts can tell typos from failures.
    public static let usage = ExitCode(rawValue: 64)

    public var description: String { "ExitCode(\(rawValue))" }
}
