import APNsEmulator
import EmulatorTesting
import Foundation
import Testing

@testable import EmulatorCLI

/// `send` without `--sandbox` or `--url`: a token the emulator knows goes to the listener where it is valid.
@Suite("send picks the token's environment")
struct SendEnvironmentTests {
    static let certs = ExecutableTests.packageRoot.appendingPathComponent("certs").path

    @Test func aSandboxTokenTheEmulatorKnowsIsSentToItsSandboxListenerAndTheUserIsTold() async throws {
        let emu = try TestEmulator(certificatesDirectory: Self.certs)
        defer { emu.shutdown() }
        let sandbox = try emu.services.tokens.issue(bundleId: "com.example.app", environment: .sandbox, now: 0).token
        let production = try emu.services.tokens.issue(bundleId: "com.example.app", environment: .production, now: 0).token
        let common = ["send", "--control", emu.endpoints.control, "--ca", emu.endpoints.ca, "--topic", "com.example.app",
                      "--key-file", Self.certs + "/AuthKey_DEVKEY1234.p8"]
        let r = await runCLI(common + ["--device-token", sandbox])
        #expect(r.code == .success, "\(r.output)\(r.errorOutput)")
        #expect(r.output.hasPrefix("status: 200"))
        #expect(r.errorOutput.contains("knows this token as a sandbox token"))
        let p = await runCLI(common + ["--device-token", production])
        #expect(p.code == .success, "\(p.output)\(p.errorOutput)")
        #expect(p.errorOutput.contains("knows this token as a production token"))
        // An explicit --url is obeyed as given: the sandbox token sent to production is Apple's BadDeviceToken.
        let wrong = await runCLI(common + ["--device-token", sandbox, "--url", emu.endpoints.production])
        #expect(wrong.output.contains("reason: BadDeviceToken"), "\(wrong.output)\(wrong.errorOutput)")
        #expect(!wrong.errorOutput.contains("knows this token"))
    }

    @Test func aLookupRefusedForWantOfTheControlTokenSaysSoAndTheTokenFixesIt() async throws {
        let emu = try TestEmulator(certificatesDirectory: Self.certs) { $0.controlToken = "s3cret" }
        defer { emu.shutdown() }
        let sandbox = try emu.services.tokens.issue(bundleId: "com.example.app", environment: .sandbox, now: 0).token
        let arguments = ["send", "--control", emu.endpoints.control, "--ca", emu.endpoints.ca, "--topic", "com.example.app",
                         "--key-file", Self.certs + "/AuthKey_DEVKEY1234.p8", "--device-token", sandbox,
                         "--url", "https://127.0.0.1:1"]
        // Without the control token the lookup is refused, and said so; with it, the sandbox listener is found.
        let refused = await runCLI(Array(arguments.dropLast(2)))
        #expect(refused.errorOutput.contains("refused the token lookup (401; pass --control-token"), "\(refused.errorOutput)")
        let allowed = await runCLI(Array(arguments.dropLast(2)) + ["--control-token", "s3cret"])
        #expect(allowed.code == .success, "\(allowed.output)\(allowed.errorOutput)")
        #expect(allowed.errorOutput.contains("knows this token as a sandbox token"))
    }
}
