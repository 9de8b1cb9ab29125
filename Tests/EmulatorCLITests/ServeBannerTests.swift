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

    @Test func sendsARealPushWithTheSampleKeyToAnIssuedToken() {
        let expected = """

            Send a push (signed with the sample key DEVKEY1234 of team DEVTEAM123, registered at start):
              TOKEN=$(curl -s -X POST -d '{"bundleId":"com.example.app","environment":"production"}' \
            http://127.0.0.1:40003/_emulator/tokens | python3 -c 'import json,sys;print(json.load(sys.stdin)["token"])')
              curl --http2 --cacert certs/ca.pem --resolve api.push.apple.com:40001:127.0.0.1 \
            -H "authorization: bearer $(apns-emulator token)" -H 'apns-topic: com.example.app' \
            -d '{"aps":{"alert":"hi"}}' https://api.push.apple.com:40001/3/device/$TOKEN

            ready:
            """
        #expect(banner().text.contains(expected), "\(banner().text)")
    }

    @Test func curlExampleConnectsThroughLoopbackWhenBoundToEveryAddress() {
        #expect(banner(production: "https://0.0.0.0:2197").curlExample.contains("api.push.apple.com:2197:127.0.0.1"))
    }

    @Test func controlTokenIsSentFromTheEnvironmentAndNeverPrinted() {
        var configuration = EmulatorConfiguration()
        configuration.controlToken = "s3cret-token"
        let text = banner(configuration: configuration).text
        #expect(!text.contains("s3cret-token"))
        #expect(text.contains("; export APNS_EMULATOR_CONTROL_TOKEN=<control token> first:\n"))
        #expect(
            banner(configuration: configuration).issueTokenCommand.hasPrefix(
                #"TOKEN=$(curl -s -X POST -H "authorization: Bearer $APNS_EMULATOR_CONTROL_TOKEN" -d '{"#
            )
        )
        #expect(!banner().issueTokenCommand.contains("authorization"), "no token, no header")
    }

    @Test func certificatesOutsideCertsNameTheSampleKeyFileForTheProviderToken() {
        var configuration = EmulatorConfiguration()
        configuration.certificatesDirectory = "/opt/apns emulator/certs/"
        let keyFile = "'/opt/apns emulator/certs/AuthKey_DEVKEY1234.p8'"
        #expect(
            banner(configuration: configuration).curlExample.contains(
                #"-H "authorization: bearer $(apns-emulator token --key-file \#(keyFile))" "#
            )
        )
    }

    @Test func withoutTheSampleKeyTheHeadingSaysWhatToRegisterFirst() {
        var configuration = EmulatorConfiguration()
        configuration.registerSampleKey = false
        let text = banner(configuration: configuration).text
        #expect(text.contains("\nSend a push (started with --no-sample-key: register a key with POST "))
        #expect(!text.contains("registered at start"))
    }

    @Test(arguments: [
        ("certs/ca.pem", "certs/ca.pem"), ("/tmp/a b/ca.pem", "'/tmp/a b/ca.pem'"), ("it's", #"'it'\''s'"#),
        ("$HOME/ca.pem", "'$HOME/ca.pem'"), ("", "''"),
    ])
    func pathsAreQuotedOnlyWhenTheShellWouldChangeThem(path: String, quoted: String) {
        #expect(ServeBanner.shellQuoted(path) == quoted)
    }
}

@Suite struct ServeBannerExecutableTests {
    @Test func bannerNamesTheBinaryByThePathItWasStartedWith() {
        #expect(ServeCommand.invokedExecutable(".build/release/apns-emulator") == ".build/release/apns-emulator")
        #expect(ServeCommand.invokedExecutable("apns-emulator") == "apns-emulator")
        #expect(ServeCommand.invokedExecutable("/tmp/xctest/apns-emulatorPackageTests.xctest") == "apns-emulator")
    }

    @Test func pushExampleRunsTheBinaryItWasGiven() {
        var banner = ServeBanner(version: "1", production: "https://127.0.0.1:1", sandbox: "https://127.0.0.1:2",
                                 control: "http://127.0.0.1:3", caPath: "certs/ca.pem", configuration: EmulatorConfiguration())
        banner.executable = ".build/release/apns-emulator"
        #expect(banner.text.contains(#"-H "authorization: bearer $(.build/release/apns-emulator token)""#))
    }
}
