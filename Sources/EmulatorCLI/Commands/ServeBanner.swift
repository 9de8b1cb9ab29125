import APNsEmulator
import Foundation

/// What `serve` prints once it is listening: version, effective settings, an endpoint table, the CA to trust, the
/// commands that send a first real push, and the `ready:` line.
///
/// Built from plain strings so it can be pinned by tests without starting anything. The effective settings are
/// echoed as WireMock does, because "which port did port 0 give me, and were client certificates on?" is the first
/// question when a CI run misbehaves. The last line is machine-readable and always last: scripts wait for it.
struct ServeBanner: Sendable {
    var version: String
    var production: String
    var sandbox: String
    var control: String
    /// The front doors' URL, when they listen.
    var frontDoors: String? = nil
    var caPath: String
    var configuration: EmulatorConfiguration
    /// How to invoke this binary in the printed commands: `apns-emulator` when it is on PATH, otherwise the
    /// path it was started by (after `make run` that is `.build/release/apns-emulator`).
    var executable: String = "apns-emulator"

    var text: String {
        var lines = ["apns-emulator \(version)", ""]
        // With --transport-only the control port serves no dashboard.
        lines += table([("Endpoint", "URL"), ("production", production), ("sandbox", sandbox), ("control", control)]
                       + (configuration.transportOnly ? [] : [("dashboard", control + "/")])
                       + (frontDoors.map { [("front doors (FCM, OneSignal)", $0)] } ?? []))
        lines += [
            "",
            "CA certificate: \(caPath)",
            "State: " + stateSummary,
            "Realism: \(configuration.connectionBehavior.profileName)",
            "Settings: " + settingsSummary,
            "",
            sendHeading,
            "  " + issueTokenCommand,
            "  " + curlExample,
            "",
            "ready: production=\(production) sandbox=\(sandbox) control=\(control) ca=\(caPath)"
                + (frontDoors.map { " frontDoors=\($0)" } ?? ""),
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where registered keys and tokens live, so a surprising leftover device is traced to its folder at once.
    private var stateSummary: String {
        if let store = configuration.stateStore { return "shared: \(store) as replica \(configuration.replicaId)" }
        return configuration.ephemeral ? "ephemeral (in memory only)" : configuration.stateDirectory
    }

    private var settingsSummary: String {
        let loops = configuration.eventLoops.map(String.init) ?? "one per core"
        let clientCertificates = configuration.requestClientCertificates ? "requested" : "off"
        return "event loops \(loops), max concurrent streams \(configuration.maxConcurrentStreams), "
            + "max body \(configuration.maxRequestBodyBytes) bytes, client certificates \(clientCertificates)"
    }

    /// What the two commands below rely on. A newcomer's first push should succeed, so the heading says which key
    /// signs it, and what to set up first when the commands cannot work as printed.
    private var sendHeading: String {
        var heading = "Send a push"
        if configuration.registerSampleKey {
            heading += " (signed with the sample key \(DevCertificates.sampleKeyId) of team "
                + "\(DevCertificates.sampleTeamId), registered at start)"
        } else {
            heading += " (started with --no-sample-key: register a key with POST \(control)/_emulator/keys and give "
                + "'apns-emulator token' its --key-file, --key-id and --team-id)"
        }
        if hasControlToken {
            // The token itself is never printed: banners end up in CI logs.
            heading += "; export \(ServeCommand.controlTokenVariable)=<control token> first"
        }
        return heading + ":"
    }

    private var hasControlToken: Bool { !(configuration.controlToken ?? "").isEmpty }

    /// Issues a production device token for the sample app through the control API and keeps it in `$TOKEN` for
    /// the push below; a token the registry does not know would be answered 400 BadDeviceToken.
    var issueTokenCommand: String {
        let authorization = hasControlToken
            ? " -H \"authorization: Bearer $\(ServeCommand.controlTokenVariable)\"" : ""
        let body = #"{"bundleId":"\#(DevCertificates.sampleBundleId)","environment":"production"}"#
        return "TOKEN=$(curl -s -X POST\(authorization) -d '\(body)' \(control)/_emulator/tokens | python3 -c "
            + #"'import json,sys;print(json.load(sys.stdin)["token"])')"#
    }

    /// A real push to `$TOKEN`, signed by `apns-emulator token` with the sample key.
    ///
    /// `--resolve` keeps the real APNs host name in the URL (and so in SNI and `:authority`, which pick the
    /// environment) while connecting to the emulator.
    var curlExample: String {
        let url = URL(string: production)
        let port = url?.port.map(String.init) ?? String(configuration.productionPort)
        var address = url?.host ?? "127.0.0.1"
        // A wildcard bind is reachable through loopback; curl needs an address it can connect to.
        if ["0.0.0.0", "::", "[::]", ""].contains(address) { address = "127.0.0.1" }
        if address.contains(":") && !address.hasPrefix("[") { address = "[\(address)]" }
        return "curl --http2 --cacert \(Self.shellQuoted(caPath)) --resolve api.push.apple.com:\(port):\(address) "
            + "-H \"authorization: bearer $(\(providerTokenCommand))\" "
            + "-H 'apns-topic: \(DevCertificates.sampleBundleId)' -d '{\"aps\":{\"alert\":\"hi\"}}' "
            + "https://api.push.apple.com:\(port)/3/device/$TOKEN"
    }

    /// `apns-emulator token` reads `certs/` by default, as `serve` does; a key in any other folder must be named, or
    /// the token would be signed by a key the emulator never registered.
    private var providerTokenCommand: String {
        let directory = configuration.certificatesDirectory
        let keyFile = (directory.hasSuffix("/") ? directory : directory + "/") + DevCertificates.FileName.authKey
        let token = "\(Self.shellQuoted(executable)) token"
        guard keyFile != ProviderKeyOptions.defaultKeyFile else { return token }
        return "\(token) --key-file \(Self.shellQuoted(keyFile))"
    }

    /// Paths are pasted into a shell: quote any with characters the shell would split or expand.
    static func shellQuoted(_ text: String) -> String {
        let isSafe = !text.isEmpty && text.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII
                && (CharacterSet.alphanumerics.contains(scalar) || "/._-+:=@%,".unicodeScalars.contains(scalar))
        }
        return isSafe ? text : "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// A cli-table3-style box in ASCII, so it survives CI log viewers that mangle box-drawing characters.
    private func table(_ rows: [(String, String)]) -> [String] {
        let first = rows.map(\.0.count).max() ?? 0
        let second = rows.map(\.1.count).max() ?? 0
        let rule =
            "+" + String(repeating: "-", count: first + 2) + "+" + String(repeating: "-", count: second + 2) + "+"
        func line(_ row: (String, String)) -> String {
            "| " + row.0.padding(toLength: first, withPad: " ", startingAt: 0) + " | "
                + row.1.padding(toLength: second, withPad: " ", startingAt: 0) + " |"
        }
        return [rule, line(rows[0]), rule] + rows.dropFirst().map(line) + [rule]
    }
}
