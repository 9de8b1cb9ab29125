import Foundation
import H2Transport
import SpawnedProcess
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

/// The control API over real HTTP/1.1 (libmicrohttpd), driven by curl with no special flags and by
/// Python `requests`, the two clients users reach for first.
@Suite("ControlAPI: live over HTTP/1.1 with curl and Python requests")
struct ControlAPILiveTests {
    /// A started control server; stopped when the test's `defer` runs `stop()`.
    struct Live {
        let fixture: ControlAPIFixture
        let server: HTTP1Server
        let base: String

        init(controlToken: String? = nil) throws {
            fixture = try ControlAPIFixture(controlToken: controlToken)
            server = HTTP1Server(handler: fixture.api)
            let address = try server.start(host: "127.0.0.1", port: 0)
            base = "http://127.0.0.1:\(address.port)"
        }

        func stop() { server.stop() }
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Output {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting: a child blocked on a full pipe would never exit.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func curl(_ arguments: [String]) throws -> String {
        let output = try run("/usr/bin/curl", arguments)
        #expect(output.status == 0, "curl \(arguments): \(output.stderr)")
        return output.stdout
    }

    // MARK: curl

    @Test func curlWithNoFlagsGetsHealth() throws {
        let live = try Live()
        defer { live.stop() }
        #expect(try Self.curl([live.base + "/_emulator/health"]) == #"{"status":"ok"}"#)
    }

    @Test func curlDashDPostsJSONWithoutAContentTypeFlag() throws {
        let live = try Live()
        defer { live.stop() }
        // `curl -d` sends `application/x-www-form-urlencoded`; the API reads the body as JSON regardless.
        let created = try Self.curl(["-s", "-d", #"{"bundleId":"com.example.app","environment":"sandbox"}"#,
                                     live.base + "/_emulator/tokens"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])
        let token = try #require(object["token"] as? String)
        #expect(live.fixture.services.tokens.lookup(token) != nil)

        let unregistered = try Self.curl(["-s", "-X", "POST", live.base + "/_emulator/tokens/\(token)/unregister"])
        #expect(unregistered.contains(#""unregisteredAt":\#(ControlAPIFixture.start)"#))

        let headers = try Self.curl(["-s", "-i", live.base + "/_emulator/tokens?bundleId=com.example.app"])
        #expect(headers.lowercased().contains("x-apns-emulator: \(EmulatorVersion.current)"))
        #expect(headers.lowercased().contains("content-type: application/json"))
        #expect(headers.contains(token))

        let status = try Self.curl(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "DELETE",
                                    live.base + "/_emulator/tokens/\(token)"])
        #expect(status == "204")
    }

    @Test func curlSeesErrorsAsJSON() throws {
        let live = try Live()
        defer { live.stop() }
        let unknown = try Self.curl(["-s", "-d", #"{"teamid":"X"}"#, live.base + "/_emulator/keys"])
        // Compared as JSON: Foundation's JSONEncoder on Linux does not keep key order from run to run.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(unknown.utf8)) as? [String: String])
        #expect(object.keys.sorted() == ["error", "field"], "\(unknown)")
        #expect(object["error"]?.hasPrefix("unknown field 'teamid'") == true, "\(unknown)")
        #expect(object["field"] == "teamid")
        let notAllowed = try Self.curl(["-s", "-i", "-X", "PATCH", live.base + "/_emulator/keys"])
        #expect(notAllowed.hasPrefix("HTTP/1.1 405"))
        #expect(notAllowed.lowercased().contains("allow: get, post, head"))
    }

    @Test func curlNeedsTheBearerTokenExceptForHealth() throws {
        let live = try Live(controlToken: "s3cret")
        defer { live.stop() }
        let code = ["-s", "-o", "/dev/null", "-w", "%{http_code}"]
        #expect(try Self.curl(code + [live.base + "/_emulator/health"]) == "200")
        #expect(try Self.curl(code + [live.base + "/_emulator/keys"]) == "401")
        #expect(try Self.curl(code + ["-H", "Authorization: Bearer nope", live.base + "/_emulator/keys"]) == "401")
        #expect(try Self.curl(code + ["-H", "Authorization: Bearer s3cret", live.base + "/_emulator/keys"]) == "200")
    }

    // MARK: Python requests

    @Test func pythonRequestsDrivesEveryResourceGroup() throws {
        let live = try Live(controlToken: "py-token")
        defer { live.stop() }
        let output = try Self.run("/usr/bin/python3", ["-c", Self.pythonScript, live.base])
        #expect(output.status == 0, "python: \(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.hasSuffix("ok\n"), "\(output.stdout)")
    }

    /// Walks keys, tokens, faults, journal, clock, state and errors the way a Python test suite would.
    static let pythonScript = #"""
        import sys, requests
        base = sys.argv[1] + "/_emulator"
        s = requests.Session()
        s.headers["Authorization"] = "Bearer py-token"

        def check(cond, what):
            if not cond:
                print("FAILED:", what); sys.exit(1)

        r = requests.get(base + "/health")
        check(r.status_code == 200 and r.json() == {"status": "ok"}, "health without token")
        check(requests.get(base + "/keys").status_code == 401, "keys without token")

        r = s.post(base + "/keys", json={"teamId": "TEAM000001", "keyId": "KEY0000001"})
        check(r.status_code == 201, "create key: %s" % r.text)
        check(r.headers["x-apns-emulator"] and r.headers["content-type"] == "application/json", "headers")
        check(r.json()["privateKeyPem"].startswith("-----BEGIN PRIVATE KEY-----"), "private key shown")
        check([k["keyId"] for k in s.get(base + "/keys").json()["keys"]] == ["KEY0000001"], "list keys")

        r = s.post(base + "/tokens", json={"bundleId": "com.example.app", "environment": "production"})
        check(r.status_code == 201, "create token: %s" % r.text)
        token = r.json()["token"]
        check(r.json()["bundleId"] == "com.example.app" and r.json()["environment"] == "production", "token fields")
        r = s.post(base + "/tokens/%s/unregister" % token, json={"at": 1700000000000})
        check(r.status_code == 200 and r.json()["unregisteredAt"] == 1700000000000, "unregister: %s" % r.text)

        r = s.post(base + "/faults", json={"token": token, "action": {"type": "reason", "reason": "BadDeviceToken"}, "count": 1})
        check(r.status_code == 201, "create fault: %s" % r.text)
        fault_id = r.json()["id"]
        check(len(s.get(base + "/faults").json()["faults"]) == 1, "list faults")
        check(s.delete(base + "/faults/" + fault_id).status_code == 204, "delete fault")

        r = s.get(base + "/journal", params={"token": token, "limit": 5})
        check(r.status_code == 200 and r.json() == {"entries": []}, "journal")
        check(s.get(base + "/journal/count").json() == {"count": 0}, "count")
        r = s.put(base + "/journal/settings", json={"enabled": False, "capacity": 50})
        check(r.json()["enabled"] is False and r.json()["capacity"] == 50, "settings")

        now = s.get(base + "/clock").json()["now"]
        r = s.post(base + "/clock/advance", json={"seconds": 60})
        check(r.json() == {"now": now + 60000}, "advance: %s" % r.text)

        snapshot = s.get(base + "/state").json()
        check(len(snapshot["keys"]) == 1 and len(snapshot["tokens"]) == 1, "export")
        check(s.post(base + "/reset").status_code == 204, "reset")
        check(s.get(base + "/keys").json() == {"keys": []}, "reset emptied keys")
        check(s.put(base + "/state", json=snapshot).status_code == 204, "import")
        check(s.get(base + "/state").json() == snapshot, "round trip")

        r = s.post(base + "/keys", json={"teamId": "TEAM000001", "keyId": "KEY0000002", "kind": "topic", "environment": "sandbox"})
        check(r.status_code == 400 and r.json()["field"] == "topics", "topic key without topics: %s" % r.text)
        r = s.post(base + "/keys", data="{not json")
        check(r.status_code == 400 and r.json()["field"] is None, "malformed")
        r = s.delete(base + "/state")
        check(r.status_code == 405 and r.headers["allow"] == "GET, PUT, HEAD", "405: %s" % r.headers)
        check(s.get(base + "/nowhere").status_code == 404, "404")
        check(s.get(base + "/state").json() == snapshot, "refused requests changed nothing")
        check(s.get(base + "/openapi.json").json()["openapi"].startswith("3.0"), "openapi")
        print("ok")
        """#
}
