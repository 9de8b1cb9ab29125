/// `apns-emulator` itself: picks a subcommand, and answers `--version`.
public struct APNsEmulatorCommand: Command {
    /// Declared so the root's help lists it and the parser knows it; the runner never treats it specially.
    static let versionFlag = OptionDeclaration.flag("version", help: "Show the version.")

    /// The executable's help: its subcommands and `--version`.
    public static let configuration = CommandConfiguration(
        name: "apns-emulator",
        abstract: "A local stand-in for Apple Push Notification service (APNs), for tests and CI.",
        discussion: """
            Start it with 'apns-emulator serve', point your provider at the printed production or sandbox URL, \
            trust the printed CA, and inspect what arrived through the control API.
            """,
        options: [versionFlag],
        subcommands: [ServeCommand.self, TestCommand.self, ExecCommand.self, BenchCommand.self, SendCommand.self, TokenCommand.self,
                      CertsCommand.self, VersionCommand.self]
    )

    /// Reached only with options and no subcommand, so without `--version` the line is missing its subcommand.
    ///
    /// - Parameter arguments: The arguments when no subcommand word came first.
    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        let options = try arguments.parseOptions(Self.configuration.options)
        guard options.flag(Self.versionFlag) else {
            throw .missingSubcommand(available: Self.configuration.subcommands.map { $0.configuration.name })
        }
    }

    /// Same output as `apns-emulator version`, by construction.
    ///
    /// - Parameter context: Where the line goes.
    public func run(context: CommandContext) async throws -> ExitCode {
        try await VersionCommand().run(context: context)
    }
}
