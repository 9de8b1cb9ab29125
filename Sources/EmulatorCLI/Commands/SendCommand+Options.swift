import APNsEmulator

extension SendCommand {
    /// The flags, as data for the parser and the generated help, in help order: where, what, how to authenticate.
    enum Option {
        static let productionServerName = "api.push.apple.com"
        static let sandboxServerName = "api.sandbox.push.apple.com"
        static let defaultCA = "certs/" + DevCertificates.FileName.caCertificate

        static let url = OptionDeclaration.value(
            "url",
            valueName: "url",
            help: "Server to connect to, as https://HOST:PORT; a host name is resolved, the path is always "
                + "/3/device/<token>.",
            default: "https://127.0.0.1:2197, or :2198 with --sandbox"
        )
        static let sandbox = OptionDeclaration.flag(
            "sandbox",
            help: "Talk to the sandbox environment: port 2198 (unless --url says otherwise) and server name "
                + "\(sandboxServerName)."
        )
        static let serverName = OptionDeclaration.value(
            "server-name",
            valueName: "name",
            help: "Name sent in SNI and :authority and verified in the server certificate; it selects the "
                + "environment.",
            default: "\(productionServerName), or \(sandboxServerName) with --sandbox"
        )
        static let ca = OptionDeclaration.value(
            "ca",
            valueName: "path",
            help: "PEM certificates the server is verified against.",
            default: defaultCA
        )
        static let deviceToken = OptionDeclaration.value(
            "device-token",
            valueName: "hex",
            help: "Device token the push is addressed to (required)."
        )
        static let topic = OptionDeclaration.value(
            "topic",
            valueName: "topic",
            help: "apns-topic: the bundle id, plus the push type's suffix where one applies."
        )
        static let pushType = OptionDeclaration.value(
            "push-type",
            valueName: "type",
            help: "apns-push-type, e.g. alert, background, voip, liveactivity."
        )
        static let priority = OptionDeclaration.value(
            "priority",
            valueName: "n",
            help: "apns-priority: 10, 5 or 1."
        )
        static let expiration = OptionDeclaration.value(
            "expiration",
            valueName: "seconds",
            help: "apns-expiration, in seconds since 1970; 0 means deliver now or never."
        )
        static let collapseId = OptionDeclaration.value(
            "collapse-id",
            valueName: "id",
            help: "apns-collapse-id: pushes with the same id replace each other on the device."
        )
        static let apnsId = OptionDeclaration.value(
            "apns-id",
            valueName: "uuid",
            help: "apns-id to send; the server generates one when absent."
        )
        static let header = OptionDeclaration.value(
            "header",
            shortName: "H",
            valueName: "name: value",
            help: "Any other header; may repeat, and a header given twice is sent twice."
        )
        static let payload = OptionDeclaration.value(
            "payload",
            valueName: "json",
            help: "Request body as JSON text, or @FILE to read it from a file (@- for standard input).",
            default: SendCommand.defaultPayload
        )
        static let control = OptionDeclaration.value(
            "control",
            valueName: "url",
            help: "The emulator's control API (else $APNS_EMULATOR_CONTROL_URL): with neither --sandbox nor "
                + "--url, the token's environment is looked up there and the push goes to that listener.",
            default: "http://127.0.0.1:8765"
        )
        static let controlToken = OptionDeclaration.value(
            "control-token",
            valueName: "token",
            help: "Bearer token for --control's lookup (else $APNS_EMULATOR_CONTROL_TOKEN)."
        )
        static let jwt = OptionDeclaration.value(
            "jwt",
            valueName: "token",
            help: "Provider token to send as 'authorization: bearer', instead of minting one."
        )
        static let certificate = OptionDeclaration.value(
            "cert",
            valueName: "path",
            help: "PEM client certificate for certificate authentication (with --key); no token is sent "
                + "unless --jwt or --key-file/--key-id/--team-id is also given."
        )
        static let certificateKey = OptionDeclaration.value(
            "key",
            valueName: "path",
            help: "PEM private key of --cert."
        )
        static let noAuth = OptionDeclaration.flag(
            "no-auth",
            help: "Send neither a token nor a client certificate."
        )
        static let json = OptionDeclaration.flag(
            "json",
            help: "Print the response as one JSON object instead of one line per field."
        )

        /// The flags that become `apns-*` headers, with the header each fills, in the order they are sent.
        static let apnsHeaders: [(OptionDeclaration, String)] = [
            (topic, "apns-topic"), (pushType, "apns-push-type"), (priority, "apns-priority"),
            (expiration, "apns-expiration"), (collapseId, "apns-collapse-id"), (apnsId, "apns-id"),
        ]

        static let all =
            [url, sandbox, control, controlToken, serverName, ca, deviceToken, topic, pushType, priority, expiration, collapseId, apnsId]
            + [header, payload, jwt] + ProviderKeyOptions.Option.all + [certificate, certificateKey, noAuth, json]
    }
}
