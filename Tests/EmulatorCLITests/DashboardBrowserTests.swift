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
            try #require(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/install-deps.sh")
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
        #expect((result?["steps"] as? [String])?.count == 15, "\(line)")
    }

    @Test func thePageAndItsAssetsNeedNoTokenButItsDataDoes() async throws {
        let served = try await ServedEmulator(["--control-token", "s3cret"])
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        func status(_ path: String, method: String = "GET", token: String? = nil) async throws -> String {
            var arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", method, control + path]
            if method == "POST" { arguments += ["-H", "Content-Type: application/json", "-d", "{}"] }
            if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
            return try await SpawnedProcess.runToCompletion("curl", arguments, timeout: .seconds(20)).stdout
        }
        for asset in ["/", "/_emulator/dashboard", "/_emulator/dashboard/app.js", "/_emulator/dashboard/style.css"] {
            #expect(try await status(asset) == "200", "\(asset)")
        }
        #expect(try await status("/_emulator/devices") == "401")
        #expect(try await status("/_emulator/devices", token: "s3cret") == "200")
        #expect(try await status("/_emulator/scenario-runs") == "401")
        #expect(try await status("/_emulator/dashboard/send", method: "POST") == "401")
        #expect(try await status("/_emulator/dashboard/send", method: "POST", token: "s3cret") == "400")
    }

    @Test func aWebPageElsewhereCannotCallTheControlAPI() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        func status(_ headers: [String]) async throws -> String {
            let arguments = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", control + "/_emulator/reset"]
                + headers.flatMap { ["-H", $0] }
            return try await SpawnedProcess.runToCompletion("curl", arguments, timeout: .seconds(20)).stdout
        }
        #expect(try await status(["Sec-Fetch-Site: cross-site"]) == "403")
        #expect(try await status(["Origin: http://evil.example"]) == "403")
        #expect(try await status(["Host: rebound.example:8765"]) == "403", "a DNS-rebinding page's host")
        let port = try #require(control.split(separator: ":").last)
        #expect(try await status(["Origin: http://127.0.0.1:\(port)", "Sec-Fetch-Site: same-origin"]) == "204")
        #expect(try await status([]) == "204", "curl and other clients send none of these")
    }
}

extension DashboardBrowserTests {
    @Test func theOpenAPIDocumentHasEveryDashboardRouteWithItsAuth() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let text = try await SpawnedProcess.runToCompletion("curl", ["-s", control + "/_emulator/openapi.json"], timeout: .seconds(20)).stdout
        let paths = try #require((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["paths"] as? [String: Any])
        let routes: [(path: String, method: String, open: Bool)] = [
            ("/", "get", true), ("/_emulator/dashboard", "get", true), ("/_emulator/dashboard/app.js", "get", true),
            ("/_emulator/dashboard/style.css", "get", true), ("/_emulator/dashboard/send", "post", false),
            ("/_emulator/scenario-runs", "get", false), ("/_emulator/scenario-runs", "post", false),
        ]
        for route in routes {
            let operation = try #require((paths[route.path] as? [String: Any])?[route.method] as? [String: Any], "\(route.path)")
            let responses = try #require(operation["responses"] as? [String: Any])
            #expect((responses["401"] != nil) == !route.open, "\(route.method) \(route.path): documented auth")
        }
    }
}
