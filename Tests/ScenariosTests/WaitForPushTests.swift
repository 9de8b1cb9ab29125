import APNsEmulator
import EmulatorTesting
import Foundation
import H2Transport
import Testing

@testable import Scenarios

/// `wait-for-push` waits for a sender outside the scenario; the scenario's own pushes never count, and an
/// external push must be found whenever it is journaled after the scenario began.
@Suite("wait-for-push")
struct WaitForPushTests {
    /// The scenario's own push is held one and a half seconds by a delay fault (journaled at once, answered
    /// late); the backend's push lands in between. Moving the journal cursor to the newest entry once the own
    /// push was answered would skip it, and the wait would time out.
    @Test func anExternalPushJournaledWhileTheScenariosOwnPushIsInFlightIsFound() async throws {
        let emu = try TestEmulator(certificatesDirectory: bundledCertificates)
        defer { emu.shutdown() }
        let scenarios = try ScenarioParser(file: "race.yaml").parse("""
            name: backend push overtakes the scenario's own
            clock: real
            devices:
              - id: race-phone
                apps: [{bundleId: com.example.app}]
            steps:
              - call: RequestAuthorization
                options: [1, 2, 3]
              - call: GetToken
              - control: {method: POST, path: /_emulator/faults, body: {id: slow, count: 1, action: {type: delay, delayMs: 1500}}}
              - push: {payload: {aps: {alert: Own}}}
                expect: {status: 200}
              - wait-for-push: {payloadContains: External, timeout: 10s}
                expect: {status: 200}
            """)
        let runner = ScenarioRunner(options: .init(certificatesDirectory: bundledCertificates,
                                                   emulatorURL: emu.endpoints.control, jobs: 1))
        async let results = runner.run(scenarios)

        // The backend: once the scenario's own push is journaled (and still unanswered), push to the device.
        var own: JournalEntry?
        for _ in 0..<200 where own == nil {
            own = emu.services.journal.query().first { $0.payload?.contains("Own") == true }
            if own == nil { try await Task.sleep(for: .milliseconds(20)) }
        }
        let ownEntry = try #require(own, "the scenario never sent its own push")
        let token = try #require(ownEntry.token)
        let environment = try #require(emu.services.tokens.deviceToken(token)).environment
        let connection = try await emu.connect(environment)
        defer { connection.close() }
        let external = try await connection.send(emu.push(
            to: token, environment: environment, jwt: try emu.sampleJWT(),
            payload: #"{"aps":{"alert":"External"}}"#))
        #expect(external.status == 200)

        let result = try #require(await results.first)
        #expect(result.failures.isEmpty, "\(result.failures)")
    }
}
