import EmulatorTesting
import Foundation
import SpawnedProcess
import Testing

/// A port another process holds, as a newcomer meets it: the error names the listener and the flag to change.
@Suite("serve: a port in use")
struct PortInUseTests {
    @Test func eachListenerInUseNamesItsFlag() async throws {
        let emu = try TestEmulator(certificatesDirectory: TestCommandTests.certs)
        defer { emu.shutdown() }
        let controlPort = try #require(Int(emu.endpoints.control.split(separator: ":").last ?? ""))
        for (flag, port, listener) in [("--production-port", emu.port(.production), "production"),
                                       ("--sandbox-port", emu.port(.sandbox), "sandbox"),
                                       ("--control-port", controlPort, "control")] {
            var arguments = ["serve", "--ephemeral", "--certs", "certs", "--production-port", "0", "--sandbox-port", "0",
                             "--control-port", "0", "--front-door-port", "0"]
            arguments[arguments.firstIndex(of: flag)! + 1] = "\(port)"
            let run = try await SpawnedProcess.runToCompletion(ExecutableTests.binary.path, arguments,
                                                               directory: ExecutableTests.packageRoot, timeout: .seconds(30))
            #expect(run.status == 1)
            #expect(run.stderr.contains("the \(listener) listener cannot bind 127.0.0.1:\(port): the port is in use"),
                    "\(run.stderr)")
            #expect(run.stderr.contains("choose another with \(flag) PORT, or \(flag) 0 for any free one"), "\(run.stderr)")
        }
    }
}
