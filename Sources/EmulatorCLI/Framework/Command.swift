/// A subcommand of `apns-emulator`: parsed from arguments, validated, then run.
///
/// The three steps are separate so that every usage mistake is reported (exit 64) before anything starts listening
/// or writing files, and so tests can check parsing without running anything. It is swift-argument-parser's
/// `AsyncParsableCommand` with explicit parsing in place of property wrappers.
public protocol Command: Sendable {
    /// Name, help text and options; help is generated from this.
    static var configuration: CommandConfiguration { get }

    /// Reads the command's own arguments (those after its name); `--help` has already been handled.
    ///
    /// - Parameter arguments: The remaining arguments; a command must consume or reject all of them.
    init(parsing arguments: inout ArgumentCursor) throws(UsageError)

    /// Checks rules that span several options, after each has parsed on its own.
    func validate() throws(UsageError)

    /// Does the work. Thrown errors are printed and end the process with `ExitCode.failure`.
    ///
    /// - Parameter context: Where to write, and how to wait for a stop signal.
    func run(context: CommandContext) async throws -> ExitCode
}

extension Command {
    /// Most commands have no cross-option rules.
    public func validate() throws(UsageError) {}
}
