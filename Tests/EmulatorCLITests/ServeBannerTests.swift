import APNsEmulator
import Testing

@testable import EmulatorCLI

/// The banner scripts and people read once `serve` is listening.
struct ServeBannerTests {
    private func banner(
        production: String = "https://127.0.0.1:40001",
        configuration: EmulatorConfiguration = EmulatorConfiguration()
    ) -> ServeBanner {
        ServeBanner(
            version: "9.9.9",
            production: production,
            sandbox: "https://127.0.0.1:40002",
            control: "http://127.0.0.1:40003",
            caPath: "certs/ca.pem",
            configuration: configuration
        )
    }

    @Test func showsTheStateDirectoryAndTheRealismProfile() {
        let text = banner().text
        #expect(text.contains("\nState: .emulator-state\nRealism: documented\n"))
    }

    @Test func showsEphemeralStateAndTheStrictProfile() {
        var configuration = EmulatorConfiguration()
        configuration.ephemeral = true
        configuration.stateDirectory = "/unused"
        configuration.connectionBehavior = .strict
        let text = banner(configuration: configuration).text
        #expect(text.contains("\nState: ephemeral (in memory only)\nRealism: strict\n"))
        #expect(!text.contains("/unused"))
    }

    @Test func lastLineIsTheMachineReadableReadyLine() {
        let lastLine = banner().text.split(separator: "\n").last.map(String.init)
        #expect(
            lastLine
                == "ready: production=https://127.0.0.1:40001 sandbox=https://127.0.0.1:40002 "
                + "control=http://127.0.0.1:40003 ca=certs/ca.pem"
        )
        #expect(banner().text.hasSuffix("\n"))
    }

    @Test func startsWithTheVersionAndTabulatesEveryEndpoint() {
        let text = banner().text
        #expect(text.hasPrefix("apns-emulator 9.9.9\n"))
        #expect(text.contains("| production | https://127.0.0.1:40001 |"))
        #expect(text.contains("| sandbox    | https://127.0.0.1:40002 |"))
        #expect(text.contains("| control    | http://127.0.0.1:40003  |"))
        #expect(text.contains("CA certificate: certs/ca.pem"))
    }

    @Test func curlExampleUsesTheActualProductionPortAndTheRealHostName() {
        #expect(
            banner().curlExample
                == "curl --http2 --cacert certs/ca.pem --resolve api.push.apple.com:40001:127.0.0.1 -d '{}' "
                + "https://api.push.apple.com:40001/3/device/00"
        )
    }

    @Test func curlExampleConnectsThroughLoopbackWhenBoundToEveryAddress() {
        #expect(banner(production: "https://0.0.0.0:2197").curlExample.contains("api.push.apple.com:2197:127.0.0.1"))
    }
}
