import Foundation
import SpawnedProcess
import Testing

/// The dashboard in a real headless Chromium (Debian's `chromium` and `chromium-driver`, Selenium from PyPI in a
/// cached venv), against the real `serve`: the device wall, a push from the compose form reaching the device's
/// notification centre and the journal, a tap giving NotificationOpened, the journal filtered by reason, a fault
/// injected from the controls refusing the next push, an FCM message in the front doors' tab, a reported scenario run
/// (`scripts/test/dashboard_browser.py`, which prints each step it reached).
@Suite("Dashboard in a browser", .timeLimit(.minutes(6)))
struct DashboardBrowserTests {
    static let root = ExecutableTests.packageRoot

    static func python() async throws -> String {
        let venv = try await SpawnedProcess.runToCompletion(
            "python3", ["scripts/test/python_venv.py", "--requirement", "selenium==4.51.0", "--imports", "selenium"],
            directory: root, timeout: .seconds(300))
        return try #require(venv.status == 0 ? venv.stdout.split(separator: "\n").last.map(String.init) : nil,
                            "no venv for selenium (is PyPI reachable?): \(venv.transcript)")
    }

    @Test func aPushFromTheComposeFormIsShownTappedFoundInTheJournalAndRefusedByAFaultFromTheControls() async throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            #expect(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/install-deps.sh")
        }
        let python = try await Self.python()
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let run = try await SpawnedProcess.runToCompletion(
            python, ["scripts/test/dashboard_browser.py", "--control", control], directory: Self.root, timeout: .seconds(180))
        let line = run.stdout.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(result?["ok"] as? Bool == true, "\(run.transcript)")
        #expect((result?["steps"] as? [String])?.count == 12, "\(line)")
    }

    @Test func thePageAndItsAssetsNeedNoTokenButItsDataDoes() async throws {
        let served = try await ServedEmulator(["--control-token", "s3cret"])
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        func status(_ path: String, token: String? = nil) async throws -> String {
            var arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", control + path]
            if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
            return try await SpawnedProcess.runToCompletion("curl", arguments, timeout: .seconds(20)).stdout
        }
        #expect(try await status("/") == "200")
        #expect(try await status("/_emulator/dashboard/app.js") == "200")
        #expect(try await status("/_emulator/devices") == "401")
        #expect(try await status("/_emulator/devices", token: "s3cret") == "200")
        #expect(try await status("/_emulator/dashboard/send") == "401")
    }
}
