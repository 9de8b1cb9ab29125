import APNsEmulator
import EmulatorControl
import Testing

/// The one loopback check the CLI and `Emulator.init` share: what may run without a control token.
struct NetworkAddressTests {
    @Test(arguments: [
        "127.0.0.1", "127.8.9.10", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "localhost",
    ])
    func loopbackAddressesInAnySpellingStayOnThisMachine(host: String) {
        #expect(NetworkAddress.isLoopback(host))
    }

    @Test(arguments: [
        "0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "fe80::1", "::ffff:10.0.0.1", "apns.example.com",
        "localhost.example", "127.example.com", "",
    ])
    func wildcardsOtherAddressesAndNamesCountAsReachable(host: String) {
        #expect(!NetworkAddress.isLoopback(host))
    }

    @Test func emulatorAcceptsEveryLoopbackSpellingWithoutAControlToken() throws {
        // The certificate check comes after the loopback check, so a missing folder proves the host passed.
        var configuration = EmulatorConfiguration()
        configuration.host = "0:0:0:0:0:0:0:1"
        configuration.certificatesDirectory = "/nonexistent/apns-emulator-certs"
        configuration.ephemeral = true
        #expect {
            _ = try Emulator(configuration: configuration)
        } throws: { error in
            "\(error)".hasPrefix("missing /nonexistent/apns-emulator-certs/")
        }
        configuration.host = "10.0.0.1"
        #expect {
            _ = try Emulator(configuration: configuration)
        } throws: { error in
            "\(error)".hasPrefix("the control API would listen on 10.0.0.1")
        }
    }
}
