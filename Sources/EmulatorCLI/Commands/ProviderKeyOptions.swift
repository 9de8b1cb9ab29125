import APNsEmulator
import APNsProtocol
import Foundation
import OpenSSLSupport

/// The signing key and ids a provider token is minted from: `--key-file`, `--key-id`, `--team-id`.
///
/// Shared by `token` and `send` so both read the same flags with the same defaults (the sample key that
/// `apns-emulator certs` writes, which `serve` registers at start) and fail with the same messages.
struct ProviderKeyOptions: Sendable, Equatable {
    /// The flags, declared once for both commands.
    enum Option {
        static let keyFile = OptionDeclaration.value(
            "key-file",
            valueName: "path",
            help: "PEM (.p8) private key the provider token is signed with.",
            default: ProviderKeyOptions.defaultKeyFile
        )
        static let keyId = OptionDeclaration.value(
            "key-id",
            valueName: "id",
            help: "The key's 10-character id, sent as the token's 'kid'.",
            default: DevCertificates.sampleKeyId
        )
        static let teamId = OptionDeclaration.value(
            "team-id",
            valueName: "id",
            help: "The 10-character team id, sent as the token's 'iss'.",
            default: DevCertificates.sampleTeamId
        )

        static let all = [keyFile, keyId, teamId]
    }

    /// Where `apns-emulator certs` writes the sample key, relative to the working directory like `serve --certs`.
    static let defaultKeyFile = "certs/" + DevCertificates.FileName.authKey

    /// The `.p8` file, as typed.
    var keyFile: String
    /// The header's `kid`.
    var keyId: String
    /// The claim `iss`.
    var teamId: String

    /// - Parameters:
    ///   - keyFile: The `.p8` file; the sample key by default.
    ///   - keyId: The header's `kid`; the sample key's by default.
    ///   - teamId: The claim `iss`; the sample team by default.
    init(
        keyFile: String = defaultKeyFile,
        keyId: String = DevCertificates.sampleKeyId,
        teamId: String = DevCertificates.sampleTeamId
    ) {
        self.keyFile = keyFile
        self.keyId = keyId
        self.teamId = teamId
    }

    /// Reads whichever of the three flags were given; the others keep the sample defaults.
    ///
    /// - Parameter options: The command's parsed options.
    init(_ options: ParsedOptions) throws(UsageError) {
        self.init()
        if let path = try options.string(Option.keyFile) { keyFile = path }
        if let id = try options.string(Option.keyId) { keyId = id }
        if let id = try options.string(Option.teamId) { teamId = id }
    }

    /// Whether any of the three flags appeared, for commands where they select token authentication.
    ///
    /// - Parameter options: The command's parsed options.
    static func anyGiven(in options: ParsedOptions) -> Bool {
        Option.all.contains { options.flag($0) }
    }

    /// Reads the key and signs a token.
    ///
    /// - Parameter issuedAt: The `iat` claim, seconds since the epoch.
    /// - Returns: The compact JWS.
    /// - Throws: `CommandFailure` naming the file or the id at fault.
    func mintToken(issuedAt: Int64) throws -> String {
        let pem: String
        do {
            pem = try String(contentsOfFile: keyFile, encoding: .utf8)
        } catch {
            var message = "cannot read the key file '\(keyFile)': \(FileErrorReason.text(error))"
            if keyFile == Self.defaultKeyFile {
                message += "; run 'apns-emulator certs' to create the sample key, or pass --key-file"
            }
            throw CommandFailure(message)
        }
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: pem)
        } catch {
            throw CommandFailure("'\(keyFile)' holds no usable private key (expected a PEM .p8 key): \(error)")
        }
        do {
            return try ProviderTokenSigner.makeToken(privateKey: key, keyId: keyId, teamId: teamId, issuedAt: issuedAt)
        } catch {
            throw CommandFailure("\(error)")
        }
    }

    /// The current time as a JWT `iat`.
    static func now() -> Int64 {
        Int64(Date().timeIntervalSince1970)
    }
}
