/// `apns-emulator token`: prints a provider token (ES256 JWT) for `authorization: bearer …`.
///
/// With no flags it signs with the sample key `apns-emulator certs` writes, which `serve` registers at start, so
/// `curl -H "authorization: bearer $(apns-emulator token)"` works against a fresh emulator at once.
public struct TokenCommand: Command {
    /// The flags, as data for the parser and the generated help.
    enum Option {
        static let issuedAt = OptionDeclaration.value(
            "iat",
            valueName: "seconds",
            help: "The token's 'iat' claim, in seconds since 1970; an old or future value tests the emulator's "
                + "expiry checks.",
            default: "now"
        )
    }

    /// Help and the accepted flags, read by the runner and `--help`.
    public static let configuration = CommandConfiguration(
        name: "token",
        abstract: "Print a provider token (JWT) signed with a .p8 key.",
        discussion: """
            Prints the compact ES256 JWT on one line, ready for an 'authorization: bearer' header. The defaults \
            use the sample key from 'apns-emulator certs', which 'serve' accepts unless started with \
            --no-sample-key. Real APNs rejects a token older than an hour, so mint a fresh one per test run.

            Example:
              curl --http2 --cacert certs/ca.pem -H "authorization: bearer $(apns-emulator token)" ...
            """,
        options: ProviderKeyOptions.Option.all + [Option.issuedAt]
    )

    /// The key and ids to sign with.
    var key: ProviderKeyOptions
    /// The `iat` claim; nil means the time the command runs.
    var issuedAt: Int64?

    /// - Parameter arguments: The arguments after `token`.
    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        let options = try arguments.parseOptions(Self.configuration.options)
        self.key = try ProviderKeyOptions(options)
        self.issuedAt = try options.integer(Option.issuedAt, in: 0...Int.max).map(Int64.init)
    }

    /// One line on stdout, so `$(apns-emulator token)` captures exactly the token.
    ///
    /// - Parameter context: Where the token goes.
    public func run(context: CommandContext) async throws -> ExitCode {
        context.output.writeLine(try key.mintToken(issuedAt: issuedAt ?? ProviderKeyOptions.now()))
        return .success
    }
}
