import APNsEmulator
import Foundation

/// `apns-emulator certs`: writes the development CA and server certificate that `serve` and clients use.
///
/// Existing files are kept unless `--force`, so running it in every CI job is cheap and never invalidates a CA a
/// client has already been told to trust.
public struct CertsCommand: Command {
    /// The flags, as data for the parser and the generated help.
    enum Option {
        static let out = OptionDeclaration.value(
            "out",
            valueName: "dir",
            help: "Folder to write ca.pem, server.pem and server-key.pem into; created if missing.",
            default: "certs"
        )
        static let force = OptionDeclaration.flag(
            "force",
            help: "Replace existing files instead of keeping them."
        )
    }

    /// Help and the accepted flags, read by the runner and `--help`.
    public static let configuration = CommandConfiguration(
        name: "certs",
        abstract: "Create the development CA and server certificates.",
        discussion: """
            Clients must trust ca.pem to talk to the emulator, e.g. 'curl --cacert certs/ca.pem'. Files that \
            already exist are kept, so this is safe to run before every 'serve'.
            """,
        options: [Option.out, Option.force]
    )

    /// Folder to write into, as typed, so printed paths match what the user asked for.
    public var outputDirectory: String
    /// Whether existing files are replaced.
    public var force: Bool

    /// - Parameters:
    ///   - outputDirectory: Folder to write into.
    ///   - force: Whether existing files are replaced.
    public init(outputDirectory: String = "certs", force: Bool = false) {
        self.outputDirectory = outputDirectory
        self.force = force
    }

    /// - Parameter arguments: The arguments after `certs`.
    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        let options = try arguments.parseOptions(Self.configuration.options)
        self.outputDirectory = try options.string(Option.out) ?? "certs"
        self.force = options.flag(Option.force)
    }

    /// Prints one `wrote`/`kept` line per file, so a CI log shows whether the CA changed under its clients.
    ///
    /// - Parameter context: Output for the file lines and the regeneration note.
    public func run(context: CommandContext) async throws -> ExitCode {
        let directory = URL(fileURLWithPath: outputDirectory, isDirectory: true)
        let report = try DevCertificates.ensure(in: directory, force: force)
        for file in report.written {
            context.output.writeLine("wrote \(displayPath(file))")
        }
        for file in report.kept {
            context.output.writeLine("kept \(displayPath(file))")
        }
        // A new set means a new CA: anything told to trust the old ca.pem will now fail TLS, so say why it changed.
        if let reason = report.regenerationReason {
            context.errorOutput.writeLine(
                "note: wrote a new certificate set (\(reason)); clients must trust the new "
                    + displayPath(directory.appendingPathComponent(DevCertificates.FileName.caCertificate))
            )
        }
        return .success
    }

    /// `certs/ca.pem` rather than an absolute path, matching the `--out` the user typed.
    private func displayPath(_ file: URL) -> String {
        (outputDirectory as NSString).appendingPathComponent(file.lastPathComponent)
    }
}
