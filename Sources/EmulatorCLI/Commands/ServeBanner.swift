import APNsEmulator
import Foundation

/// What `serve` prints once it is listening: version, effective settings, an endpoint table, the CA to trust, a
/// curl line to try, and the `ready:` line.
///
/// Built from plain strings so it can be pinned by tests without starting anything. The effective settings are
/// echoed as WireMock does, because "which port did port 0 give me, and were client certificates on?" is the first
/// question when a CI run misbehaves. The last line is machine-readable and always last: scripts wait for it.
struct ServeBanner: Sendable {
    var version: String
    var production: String
    var sandbox: String
    var control: String
    var caPath: String
    var configuration: EmulatorConfiguration

    var text: String {
        var lines = ["apns-emulator \(version)", ""]
        lines += table([("Endpoint", "URL"), ("production", production), ("sandbox", sandbox), ("control", control)])
        lines += [
            "",
            "CA certificate: \(caPath)",
            "State: " + stateSummary,
            "Realism: \(configuration.connectionBehavior.profileName)",
            "Settings: " + settingsSummary,
            "",
            "Try it:",
            "  " + curlExample,
            "",
            "ready: production=\(production) sandbox=\(sandbox) control=\(control) ca=\(caPath)",
        ]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where registered keys and tokens live, so a surprising leftover device is traced to its folder at once.
    private var stateSummary: String {
        configuration.ephemeral ? "ephemeral (in memory only)" : configuration.stateDirectory
    }

    private var settingsSummary: String {
        let loops = configuration.eventLoops.map(String.init) ?? "one per core"
        let clientCertificates = configuration.requestClientCertificates ? "requested" : "off"
        return "event loops \(loops), max concurrent streams \(configuration.maxConcurrentStreams), "
            + "max body \(configuration.maxRequestBodyBytes) bytes, client certificates \(clientCertificates)"
    }

    /// `--resolve` keeps the real APNs host name in the URL (and so in SNI and `:authority`, which pick the
    /// environment) while connecting to the emulator.
    var curlExample: String {
        let url = URL(string: production)
        let port = url?.port.map(String.init) ?? String(configuration.productionPort)
        var address = url?.host ?? "127.0.0.1"
        // A wildcard bind is reachable through loopback; curl needs an address it can connect to.
        if ["0.0.0.0", "::", "[::]", ""].contains(address) { address = "127.0.0.1" }
        if address.contains(":") && !address.hasPrefix("[") { address = "[\(address)]" }
        return "curl --http2 --cacert \(caPath) --resolve api.push.apple.com:\(port):\(address) -d '{}' "
            + "https://api.push.apple.com:\(port)/3/device/00"
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
