#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The executable's entry point, kept in the library so tests can run whole command lines in-process.
public enum EmulatorCLIMain {
    /// Runs `CommandLine.arguments` and exits the process with the resulting code.
    public static func main() async {
        // A client that hangs up mid-write must cost us one connection, not the process (SIGPIPE's default action).
        signal(SIGPIPE, SIG_IGN)
        let code = await run(arguments: Array(CommandLine.arguments.dropFirst()))
        exit(code.rawValue)
    }

    /// Runs one command line without exiting, for tests and embedding.
    ///
    /// `serve` waits here for a real SIGINT/SIGTERM; to stop it from a test, inject the signal through
    /// `run(arguments:context:)`.
    ///
    /// - Parameters:
    ///   - arguments: The command line without the program name, e.g. `["serve", "--control-port", "0"]`.
    ///   - output: Receives help, banners and results.
    ///   - errorOutput: Receives usage errors and failures.
    /// - Returns: The code the process would exit with.
    public static func run(
        arguments: [String],
        output: OutputSink = .standardOutput,
        errorOutput: OutputSink = .standardError
    ) async -> ExitCode {
        await run(arguments: arguments, context: CommandContext(output: output, errorOutput: errorOutput))
    }

    /// Runs one command line with a fully injected context (for example a stop signal a test controls).
    ///
    /// - Parameters:
    ///   - arguments: The command line without the program name.
    ///   - context: Output streams and the stop signal.
    /// - Returns: The code the process would exit with.
    public static func run(arguments: [String], context: CommandContext) async -> ExitCode {
        await CommandRunner(root: APNsEmulatorCommand.self).run(arguments, context: context)
    }
}
