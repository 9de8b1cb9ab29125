import APNsEmulator
import Foundation
import H2Transport

/// `apns-emulator send`: sends one push over HTTP/2 and prints APNs's answer.
///
/// A provider in one command, for trying the emulator by hand and for shell-scripted checks. It sends exactly what
/// it is told: header values are not checked, so `--priority 7`, an empty `--apns-id`, a non-JSON payload or a
/// header given twice reach the server as typed, which is how the emulator's rejections are exercised. Only the
/// command line's own shape (a URL that is no URL, conflicting credentials) is refused, with exit 64.
public struct SendCommand: Command {
    /// Help and the accepted flags, read by the runner and `--help`.
    public static let configuration = CommandConfiguration(
        name: "send",
        abstract: "Send one push notification and print the response.",
        discussion: """
            Connects to the emulator (or any APNs-compatible server) over HTTP/2 with TLS, POSTs to \
            /3/device/<device token>, and prints 'status', 'reason', 'apns-id', 'apns-unique-id' and 'timestamp' \
            as 'key: value' lines (those the response carries), or one JSON object with --json. Exits 0 for \
            status 200 and 1 otherwise, or when the connection fails.

            Authentication defaults to a provider token minted from the sample key; --jwt sends a given token, \
            --cert/--key use certificate authentication instead, and --no-auth sends no credentials. Header \
            values are sent unchecked and -H may repeat a header, so rejections can be provoked on purpose.

            Examples:
              apns-emulator send --device-token 0123abcd --topic com.example.app
              apns-emulator send --sandbox --device-token 0123abcd --topic com.example.app --payload @push.json
              apns-emulator send --device-token 0123abcd -H 'apns-topic: a' -H 'apns-topic: b' --json
            """,
        options: Option.all
    )

    /// Where to connect: the address dialled and the name presented in SNI and `:authority`.
    struct Target: Sendable, Equatable {
        /// Host from `--url` (a name is resolved when connecting).
        var host: String
        var port: Int
        /// SNI, the name verified in the server certificate, and `:authority`.
        var serverName: String

        /// `:authority` carries the port unless it is HTTPS's default, as curl sends it.
        var authority: String { port == 443 ? serverName : "\(serverName):\(port)" }

        /// The URL as it would be typed, for messages.
        var url: String { "https://\(host.contains(":") ? "[\(host)]" : host):\(port)" }
    }

    /// What goes in the `authorization` header.
    enum Authorization: Sendable, Equatable {
        /// Nothing: certificate authentication, or `--no-auth` to provoke MissingProviderToken.
        case none
        /// `--jwt`: this token, as given.
        case token(String)
        /// A token minted from a key when the command runs.
        case mint(ProviderKeyOptions)
    }

    /// TLS client certificate for certificate authentication (`--cert`/`--key`).
    struct ClientIdentity: Sendable, Equatable {
        var certificateFile: String
        var keyFile: String
    }


    /// The body sent when `--payload` is absent: the smallest alert a device would show.
    static let defaultPayload = #"{"aps":{"alert":"Hello from apns-emulator"}}"#

    var target: Target
    /// Where the token's environment is looked up when neither `--sandbox` nor `--url` chose one (nil: they did,
    /// or `--server-name` pins the name).
    var environmentLookup: String?
    var controlToken: String?
    /// Trust roots the server certificate is verified against.
    var caFile: String
    var clientIdentity: ClientIdentity?
    var authorization: Authorization
    var deviceToken: String
    /// `apns-*` headers from their flags, then every `-H`, in command-line order; duplicates kept.
    var headers: [H2Header]
    var payload: PayloadArgument
    /// Print one JSON object instead of `key: value` lines.
    var json: Bool
    /// The arguments of every option given, for blaming the right one in `validate()`.
    private var given: [String: ArgumentCursor.Argument] = [:]

    /// - Parameter arguments: The arguments after `send`.
    public init(parsing arguments: inout ArgumentCursor) throws(UsageError) {
        let options = try arguments.parseOptions(Self.configuration.options)
        for occurrence in options.occurrences { given[occurrence.option.name] = occurrence.argument }

        let sandbox = options.flag(Option.sandbox)
        let url = try options.value(Option.url, expected: "a URL of the form https://HOST:PORT", Self.parseURL)
        let defaultServerName = sandbox ? Option.sandboxServerName : Option.productionServerName
        self.target = Target(
            host: url?.host ?? "127.0.0.1",
            port: url?.port ?? (sandbox ? 2198 : 2197),
            serverName: try options.string(Option.serverName) ?? defaultServerName
        )
        self.caFile = try options.string(Option.ca) ?? Option.defaultCA
        // Inside `apns-emulator exec`, the emulator it started is the one to ask.
        let control = try options.string(Option.control)
            ?? ProcessInfo.processInfo.environment[ExecCommand.Variable.controlURL] ?? "http://127.0.0.1:8765"
        self.environmentLookup = sandbox || url != nil || options.last(Option.serverName) != nil ? nil : control
        self.controlToken = try options.string(Option.controlToken)
            ?? ProcessInfo.processInfo.environment[ServeCommand.controlTokenVariable]

        let certificate = try options.string(Option.certificate)
        let certificateKey = try options.string(Option.certificateKey)
        if let certificate, let certificateKey {
            self.clientIdentity = ClientIdentity(certificateFile: certificate, keyFile: certificateKey)
        } else {
            self.clientIdentity = nil
        }
        if options.flag(Option.noAuth) {
            self.authorization = .none
        } else if let token = try options.string(Option.jwt) {
            self.authorization = .token(token)
        } else if ProviderKeyOptions.anyGiven(in: options) || certificate == nil {
            self.authorization = .mint(try ProviderKeyOptions(options))
        } else {
            self.authorization = .none
        }

        // Presence is checked in validate(), so a missing token is reported after any malformed value.
        self.deviceToken = try options.string(Option.deviceToken) ?? ""
        self.headers = try Self.headers(from: options)
        self.payload = try PayloadArgument.parse(options, Option.payload) ?? .text(Self.defaultPayload)
        self.json = options.flag(Option.json)
    }

    /// Rejects credentials that contradict each other, rather than silently preferring one.
    public func validate() throws(UsageError) {
        guard given[Option.deviceToken.name] != nil else {
            throw .missingOption(Option.deviceToken)
        }
        let tokenFlags = ProviderKeyOptions.Option.all.map(\.name)
        if let noAuth = given[Option.noAuth.name] {
            let conflicting = [Option.jwt.name] + tokenFlags + [Option.certificate.name, Option.certificateKey.name]
            if let other = conflicting.compactMap({ given[$0] }).first {
                throw .invalidCombination(
                    "'--no-auth' sends no credentials, so it cannot be combined with \(Self.flagName(other))",
                    argument: [noAuth, other].max { $0.index < $1.index }
                )
            }
        }
        if let jwt = given[Option.jwt.name], let other = tokenFlags.compactMap({ given[$0] }).first {
            throw .invalidCombination(
                "'--jwt' sends a ready-made token, so \(Self.flagName(other)) (for minting one) has no effect; "
                    + "pass one or the other",
                argument: [jwt, other].max { $0.index < $1.index }
            )
        }
        switch (given[Option.certificate.name], given[Option.certificateKey.name]) {
        case (let certificate?, nil):
            throw .invalidCombination(
                "'--cert' needs '--key' with the certificate's private key",
                argument: certificate
            )
        case (nil, let key?):
            throw .invalidCombination("'--key' needs '--cert' with the client certificate", argument: key)
        default:
            break
        }
    }

    /// Connects, sends, prints; see `SendCommand+Run.swift`.
    ///
    /// - Parameter context: Output for the response, errors for failures.
    public func run(context: CommandContext) async throws -> ExitCode {
        var command = self
        // Scenario apps default to development builds (sandbox tokens) and `send` to production: a token the
        // emulator knows is sent where it is valid, and the user is told.
        if let control = environmentLookup {
            switch await Self.route(of: deviceToken, control: control, controlToken: controlToken) {
            case .found(let environment, let url):
                if let address = Self.parseURL(url) {
                    command.target = Target(host: address.host, port: address.port,
                                            serverName: environment == .sandbox ? Option.sandboxServerName
                                                : Option.productionServerName)
                    context.errorOutput.writeLine("note: \(control) knows this token as a \(environment.rawValue) token:"
                                                  + " sending to its \(environment.rawValue) listener, \(url)")
                }
            case .refused(let status):
                context.errorOutput.writeLine("note: \(control) refused the token lookup (\(status)"
                    + (status == 401 ? "; pass --control-token or set \(ServeCommand.controlTokenVariable)" : "")
                    + "): sending to \(target.url) as the flags say")
            case .unknown:
                break
            }
        }
        let outcome = try await command.send()
        context.output.write(json ? outcome.jsonText + "\n" : outcome.lines.map { $0 + "\n" }.joined())
        return outcome.status == 200 ? .success : .failure
    }

    /// The request as it goes on the wire: pseudo-headers, `authorization` (when there is a token), the `apns-*`
    /// flags, then every `-H`, duplicates kept.
    ///
    /// - Parameters:
    ///   - bearerToken: The provider token, or nil for none.
    ///   - body: The payload bytes.
    func makeRequest(bearerToken: String?, body: [UInt8]) -> H2Request {
        var fields: [H2Header] = []
        if let bearerToken { fields.append(H2Header("authorization", "bearer \(bearerToken)")) }
        fields += headers
        return H2Request(
            method: "POST",
            authority: target.authority,
            path: "/3/device/\(deviceToken)",
            headers: fields,
            body: body
        )
    }

    /// `--url` must name a host and nothing past the port: the path is always `/3/device/<token>`.
    private static func parseURL(_ text: String) -> (host: String, port: Int)? {
        guard let url = URL(string: text), url.scheme?.lowercased() == "https", var host = url.host, !host.isEmpty,
            url.path.isEmpty || url.path == "/", url.query == nil, url.user == nil
        else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if let port = url.port, !(1...65535).contains(port) { return nil }
        return (host, url.port ?? 443)
    }

    /// Every `apns-*` flag as its header, then each `-H` split at its first colon.
    private static func headers(from options: ParsedOptions) throws(UsageError) -> [H2Header] {
        var headers: [H2Header] = []
        for (option, name) in Option.apnsHeaders {
            // Empty values are kept on purpose: `--apns-id ''` is how BadMessageId is provoked.
            if let value = try options.value(option, expected: "a value", { $0 }) {
                headers.append(H2Header(name, value))
            }
        }
        for occurrence in options.all(Option.header) {
            let text = occurrence.value ?? ""
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
                throw .invalidValue(occurrence.argument, expected: "a header as 'name: value'")
            }
            let name = text[..<colon].trimmingCharacters(in: .whitespaces)
            let value = text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty, !name.contains(" ") else {
                throw .invalidValue(occurrence.argument, expected: "a header as 'name: value'")
            }
            headers.append(H2Header(name.lowercased(), value))
        }
        return headers
    }

    /// `'--jwt'` from an argument that may also carry its value (`--jwt x`, `--jwt=x`).
    private static func flagName(_ argument: ArgumentCursor.Argument) -> String {
        let word = argument.text.prefix { $0 != " " && $0 != "=" }
        return "'\(word)'"
    }
}
