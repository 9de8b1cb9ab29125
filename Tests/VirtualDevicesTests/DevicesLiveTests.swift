import APNsProtocol
import Foundation
import SpawnedProcess
import Testing

/// What an external sender's CI does, with real processes: curl against the control port for a device
/// token, `curl --http2` for the push, curl again for what the device showed.
@Suite("Devices: live over the control port and curl --http2")
struct DevicesLiveTests {
    static func curl(_ arguments: [String]) throws -> String {
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sS"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "curl \(arguments)")
        return String(decoding: data, as: UTF8.self)
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
    }

    @Test func externalSenderGetsARealTokenPushesWithCurlAndReadsWhatTheDeviceShowed() async throws {
        try await DeviceHarness.run { h in
            let control = h.emu.endpoints.control
            let jwt = try h.emu.sampleJWT()
            let sandboxPort = h.emu.endpoints.sandboxPort
            let ca = h.emu.endpoints.ca
            let result: (token: String, status: String, centre: [String: Any]) = try await withCheckedThrowingContinuation { cont in
                Thread.detachNewThread {
                    do {
                        _ = try Self.curl(["-d", #"{"id":"ci-phone","apps":[{"bundleId":"com.example.app"}]}"#,
                                           control + "/_emulator/devices"])
                        let app = control + "/_emulator/devices/ci-phone/apps/com.example.app"
                        _ = try Self.curl(["-d", #"{"call":"RequestAuthorization","options":[3]}"#, app + "/calls"])
                        let call = Self.json(try Self.curl(["-d", #"{"call":"GetToken"}"#, app + "/calls"]))
                        let token = (call["result"] as? [String: Any])?["token"] as? String ?? ""
                        let status = try Self.curl([
                            "--http2", "--cacert", ca, "--resolve", "api.sandbox.push.apple.com:\(sandboxPort):127.0.0.1",
                            "-o", "/dev/null", "-w", "%{http_code}",
                            "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: com.example.app",
                            "-d", #"{"aps":{"alert":{"title":"Order shipped","body":"Track it"}}}"#,
                            "https://api.sandbox.push.apple.com:\(sandboxPort)/3/device/\(token)"])
                        let centre = Self.json(try Self.curl([app + "/notifications"]))
                        cont.resume(returning: (token, status, centre))
                    } catch {
                        cont.resume(throwing: error)
                    }
                }
            }
            #expect(result.token.count == 64)
            #expect(result.status == "200")
            let shown = (result.centre["notifications"] as? [[String: Any]])?.first?["notification"] as? [String: Any]
            #expect(shown?["title"] as? String == "Order shipped")
        }
    }
}
