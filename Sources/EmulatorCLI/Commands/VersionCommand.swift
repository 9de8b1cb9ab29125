import APNsEmulator

/// `apns-emulator version`: prints `apns-emulator <version>`, the same line as `--version`.
public struct VersionCommand: Command {
    /// Help for the subcommand; it accepts no options.
    public static let configuration = CommandConfiguration(
        name: "version",
        abstract: "Print the emulator's version."
    )

    /// The command takes nothing, which `init(parsing:)` enforces.
    public init() {}

    /// - Parameter arguments: The arguments after `version`; any at all is a usage error.
    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        _ = try arguments.parseOptions(Self.configuration.options)
    }

    /// One line on stdout, so `$(apns-emulator version)` captures exactly the name and version.
    ///
    /// - Parameter context: Where the line goes.
    public func run(context: CommandContext) async throws -> ExitCode {
        context.output.writeLine("apns-emulator \(EmulatorVersion.current)")
        return .success
    }
}
