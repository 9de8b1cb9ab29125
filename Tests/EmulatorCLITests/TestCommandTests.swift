import APNsEmulator
import EmulatorTesting
import Foundation
import SpawnedProcess
import Testing

@testable import EmulatorCLI

/// `apns-emulator test` and `apns-emulator exec` through the command runner (in-process, real emulators).
@Suite("test and exec commands", .timeLimit(.minutes(3)))
struct TestCommandTests {
    static let certs = ExecutableTests.packageRoot.appendingPathComponent("certs").path

    static func folder(_ files: [String: String]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(to: dir.appendingPathComponent(name), atomically: true, encoding: .utf8) }
        return dir
    }

    static let passing = """
        name: passes
        tags: [a]
        devices: [{id: p, apps: [{bundleId: com.example.app}]}]
        steps:
          - call: GetToken
            expect: {case: Success}
        """
    static let failing = """
        name: fails
        tags: [b]
        devices: [{id: p, apps: [{bundleId: com.example.app}]}]
        steps:
          - call: GetToken
            expect: {case: Failure}
        """

    @Test func allPassingIsExit0AndWritesBothReports() async throws {
        let dir = try Self.folder(["ok.yaml": Self.passing])
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("r.xml").path, json = dir.appendingPathComponent("r.json").path
        let r = await runCLI(["test", dir.path, "--certs", Self.certs, "--junit", junit, "--json", json])
        #expect(r.code == .success, "\(r.output)\(r.errorOutput)")
        #expect(r.output.contains("✔ passes"))
        #expect(r.output.contains("1 scenario: 1 passed, 0 failed"))
        #expect(try String(contentsOfFile: junit, encoding: .utf8).contains(#"<testcase classname="#))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        #expect(report?["passed"] as? Int == 1)
    }

    @Test func aFailingScenarioIsExit1WithFileLineAndDiff() async throws {
        let dir = try Self.folder(["ok.yaml": Self.passing, "bad.yaml": Self.failing])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = await runCLI(["test", dir.path, "--certs", Self.certs])
        #expect(r.code == .failure)
        #expect(r.output.contains("bad.yaml:6:20: expect.case: expected Failure, got Success"), "\(r.output)")
        #expect(r.output.contains("2 scenarios: 1 passed, 1 failed"))
    }

    @Test func anInvalidFileIsReportedTheOthersRunAndTheExitIs64() async throws {
        let dir = try Self.folder(["ok.yaml": Self.passing, "broken.yaml": "name: x\nsteps:\n  - cal: GetToken\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = await runCLI(["test", dir.path, "--certs", Self.certs])
        #expect(r.code == .usage)
        #expect(r.errorOutput.contains("broken.yaml:3:5: a step needs one of"))
        #expect(r.errorOutput.contains("1 invalid scenario file (listed above): the others ran"))
        #expect(r.output.contains("1 scenario: 1 passed, 0 failed"), "\(r.output)")
        let onlyBroken = try Self.folder(["broken.yaml": "name: x\nsteps:\n  - cal: GetToken\n"])
        defer { try? FileManager.default.removeItem(at: onlyBroken) }
        let none = await runCLI(["test", onlyBroken.path, "--certs", Self.certs])
        #expect(none.code == .usage)
        #expect(none.errorOutput.contains("1 invalid scenario file: nothing was run"))
    }

    @Test func tagAndNameFiltersSelectAndAnEmptySelectionIsUsage() async throws {
        let dir = try Self.folder(["ok.yaml": Self.passing, "bad.yaml": Self.failing])
        defer { try? FileManager.default.removeItem(at: dir) }
        let tagged = await runCLI(["test", dir.path, "--certs", Self.certs, "--tag", "a"])
        #expect(tagged.code == .success)
        #expect(tagged.output.contains("1 scenario: 1 passed"))
        let named = await runCLI(["test", dir.path, "--certs", Self.certs, "--name", "FAIL"])
        #expect(named.code == .failure)
        let none = await runCLI(["test", dir.path, "--certs", Self.certs, "--tag", "zzz"])
        #expect(none.code == .usage)
        #expect(none.errorOutput.contains("no scenario matched"))
        let missing = await runCLI(["test", dir.appendingPathComponent("nope").path, "--certs", Self.certs])
        #expect(missing.code == .usage)
        let badURL = await runCLI(["test", "--emulator", "ftp://x"])
        #expect(badURL.code == .usage)
    }

    static let external = """
        name: waits for a backend
        tags: [external]
        devices: [{id: p, apps: [{bundleId: com.example.app}]}]
        steps:
          - wait-for-push: {timeout: 30s}
        """

    @Test func externalScenariosAreSkippedAndReportedSoWithoutARunningEmulator() async throws {
        let dir = try Self.folder(["ok.yaml": Self.passing, "ext.yaml": Self.external])
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("r.xml").path, json = dir.appendingPathComponent("r.json").path
        let r = await runCLI(["test", dir.path, "--certs", Self.certs, "--junit", junit, "--json", json])
        #expect(r.code == .success, "a skip is not a failure: \(r.output)\(r.errorOutput)")
        #expect(r.output.contains("- waits for a backend"))
        #expect(r.output.contains("2 scenarios: 1 passed, 0 failed, 1 skipped"))
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"skipped="1""#) && xml.contains("<skipped message=\"tagged external"))
        #expect(xml.contains("timestamp=\"") && xml.contains("hostname=\""))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        #expect(report?["skipped"] as? Int == 1)
        let excluded = await runCLI(["test", dir.path, "--certs", Self.certs, "--exclude-tag", "a", "--exclude-tag", "external"])
        #expect(excluded.code == .usage, "nothing left to run")
    }

    @Test func onlyExternalScenariosWithoutAnEmulatorRunNothingAndSaySo() async throws {
        let dir = try Self.folder(["ext.yaml": Self.external])
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = await runCLI(["test", dir.path, "--certs", Self.certs])
        #expect(r.code == .usage, "a CI job that forgot --emulator must not go green: \(r.output)\(r.errorOutput)")
        #expect(r.errorOutput.contains("no scenario ran"))
    }

    @Test func anInvalidFileIsNamedInTheJUnitAndJSONReports() async throws {
        let dir = try Self.folder(["ok.yaml": Self.passing, "broken.yaml": "name: x\nsteps:\n  - cal: GetToken\n"])
        defer { try? FileManager.default.removeItem(at: dir) }
        let junit = dir.appendingPathComponent("r.xml").path, json = dir.appendingPathComponent("r.json").path
        let r = await runCLI(["test", dir.path, "--certs", Self.certs, "--junit", junit, "--json", json])
        #expect(r.code == .usage)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"errors="1""#) && xml.contains("broken.yaml") && xml.contains(#"type="InvalidScenario""#))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: json))) as? [String: Any]
        let invalid = try #require(report?["invalid"] as? [[String: Any]])
        #expect((invalid.first?["file"] as? String)?.hasSuffix("broken.yaml") == true)
        #expect(invalid.first?["line"] as? Int == 3)
    }

    @Test func noResetKeepsTheRunningEmulatorsKeysAndReplacesOnlyTheScenariosDevices() async throws {
        let emu = try TestEmulator(certificatesDirectory: Self.certs)
        defer { emu.shutdown() }
        let dir = try Self.folder(["ok.yaml": Self.passing])
        defer { try? FileManager.default.removeItem(at: dir) }
        // A token of the user's own, as `make run`'s state would hold: a reset forgets it, --no-reset must not.
        let mine = try emu.services.tokens.issue(bundleId: "com.example.mine", environment: .sandbox, now: 0).token
        let kept = await runCLI(["test", "--emulator", emu.endpoints.control, "--certs", Self.certs, "--no-reset", dir.path])
        #expect(kept.code == .success, "\(kept.output)\(kept.errorOutput)")
        #expect(kept.errorOutput.contains("as it is (--no-reset)"))
        // Again: the scenario's device from the first run is replaced, not refused as existing.
        let again = await runCLI(["test", "--emulator", emu.endpoints.control, "--certs", Self.certs, "--no-reset", dir.path])
        #expect(again.code == .success, "\(again.output)\(again.errorOutput)")
        #expect(emu.services.tokens.lookup(mine) != nil, "the emulator's own tokens survive --no-reset")
        let reset = await runCLI(["test", "--emulator", emu.endpoints.control, "--certs", Self.certs, dir.path])
        #expect(reset.code == .success)
        #expect(reset.errorOutput.contains("is reset before each scenario"))
        #expect(emu.services.tokens.lookup(mine) == nil, "a reset forgets them")
        let inProcess = await runCLI(["test", "--certs", Self.certs, "--no-reset", dir.path])
        #expect(inProcess.code == .usage)
    }

    @Test func execPassesTheEnvironmentAndPropagatesTheExitCode() async throws {
        let dir = try Self.folder([:])
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("env.txt").path
        let script = """
            env | grep ^APNS_EMULATOR_ | sort > \(out)
            curl -sf "$APNS_EMULATOR_CONTROL_URL/_emulator/health" >> \(out) || exit 9
            exit 7
            """
        let r = await runCLI(["exec", "--certs", Self.certs, "--", "sh", "-c", script])
        #expect(r.code.rawValue == 7)
        let env = try String(contentsOfFile: out, encoding: .utf8)
        for name in ["PRODUCTION_URL=https://127.0.0.1:", "SANDBOX_URL=https://127.0.0.1:", "CONTROL_URL=http://127.0.0.1:",
                     "CA_FILE=/", "KEY_FILE=/", "KEY_ID=DEVKEY1234", "TEAM_ID=DEVTEAM123"] {
            #expect(env.contains("APNS_EMULATOR_" + name), "\(env)")
        }
        #expect(env.contains(#"{"status":"ok"}"#), "the emulator answered while the command ran")
        let ok = await runCLI(["exec", "--certs", Self.certs, "--", "true"])
        #expect(ok.code == .success)
        let killed = await runCLI(["exec", "--certs", Self.certs, "--", "sh", "-c", "kill -TERM $$"])
        #expect(killed.code.rawValue == 128 + 15)
        let missing = await runCLI(["exec", "--certs", Self.certs, "--", "no-such-command-here"])
        #expect(missing.code.rawValue == 127)
        let usage = await runCLI(["exec"])
        #expect(usage.code == .usage)
    }

    /// The external-sender scenario, with curl as the user's backend: it polls the device's token from the
    /// device and pushes a welcome notification with curl while `test --emulator` waits for it.
    @Test func externalSenderScenarioPassesWithCurlAsTheSender() async throws {
        let emu = try TestEmulator(certificatesDirectory: Self.certs)
        defer { emu.shutdown() }
        let control = emu.endpoints.control
        let jwt = try emu.sampleJWT()
        let sandbox = emu.endpoints.sandboxPort
        let ca = emu.endpoints.ca
        let scenario = ExecutableTests.packageRoot.appendingPathComponent("scenarios/external").path
        async let result = runCLI(["test", "--emulator", control, "--certs", Self.certs, scenario])
        // The token is read in-process (polling with a process per attempt would spawn dozens of curls while
        // other tests spawn theirs); the push itself is curl's, as a user's backend would send it.
        var token: String?
        // Up to a minute: a loaded 2-core run has held the runner's first steps up for over 20 s.
        for _ in 0..<1200 where token == nil {
            token = try? emu.devices.app("com.example.app", on: "ci-phone").token
            if token == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        if token == nil {
            let r = await result
            Issue.record("the scenario never registered its device; the runner said: \(r.output) \(r.errorOutput)")
        }
        let deviceToken = try #require(token)
        let answered: String = await withCheckedContinuation { cont in
            Thread.detachNewThread {
                let code = Self.curl([
                    "--http2", "--cacert", ca, "--resolve", "api.sandbox.push.apple.com:\(sandbox):127.0.0.1",
                    "-o", "/dev/null", "-w", "%{http_code}", "-H", "authorization: bearer \(jwt)",
                    "-H", "apns-topic: com.example.app", "-d", #"{"aps":{"alert":{"title":"Welcome","body":"Hi"}}}"#,
                    "https://api.sandbox.push.apple.com:\(sandbox)/3/device/\(deviceToken)"])
                cont.resume(returning: code)
            }
        }
        #expect(answered == "200", "curl's push was answered \(answered)")
        let r = await result
        #expect(r.code == .success, "\(r.output)\(r.errorOutput)")
        #expect(r.output.contains("✔ The backend sends a welcome push after registration"))
    }

    static func curl(_ arguments: [String]) -> String {
        let p = SpawnedProcess()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-s"] + arguments
        let out = Pipe()
        p.standardOutput = out
        guard (try? p.run()) != nil else { return "" }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
