import Foundation
import SpawnedProcess
import Testing

/// The control API's relays to the front doors (`POST /_emulator/front-doors/…`) answer with the control API's own
/// errors (no such project, no key) or pass FCM's and OneSignal's refusals on with their own status and body: the
/// served OpenAPI document must say both, for a client generated from it.
@Suite("Front-door relays in the OpenAPI document", .timeLimit(.minutes(2)))
struct FrontDoorRelayDocumentTests {
    typealias JSON = [String: Any]

    static func post(_ url: String, _ body: String) async throws -> (status: Int, body: JSON) {
        let out = try await SpawnedProcess.runToCompletion(
            "curl", ["-s", "-w", "\n%{http_code}", "-H", "content-type: application/json", "-d", body, url],
            timeout: .seconds(20)).stdout
        let lines = out.split(separator: "\n", omittingEmptySubsequences: false)
        let status = try #require(Int(lines.last ?? ""), "\(out)")
        let json = try JSONSerialization.jsonObject(with: Data(lines.dropLast().joined(separator: "\n").utf8)) as? JSON
        return (status, json ?? [:])
    }

    @Test func relaysDocumentTheirOwnErrorsAndThePassedOnRefusalsTheyAnswerWith() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let data = try await SpawnedProcess.runToCompletion("curl", ["-s", control + "/_emulator/openapi.json"], timeout: .seconds(20)).stdout
        let paths = try #require((try JSONSerialization.jsonObject(with: Data(data.utf8)) as? JSON)?["paths"] as? JSON)
        func responses(_ path: String) throws -> JSON {
            try #require(((paths[path] as? JSON)?["post"] as? JSON)?["responses"] as? JSON, "\(path)")
        }

        // FCM's own refusal of an empty v1 body: its 400 and its error object, not the control API's `{"error": "…"}`.
        let v1 = try await Self.post(control + "/_emulator/front-doors/fcm/v1/apns-emulator-demo", "{}")
        #expect(v1.status == 400 && (v1.body["error"] as? JSON)?["status"] as? String == "INVALID_ARGUMENT", "\(v1)")
        let v1Responses = try responses("/_emulator/front-doors/fcm/v1/{projectId}")
        let v1Schema = try #require((((v1Responses["400"] as? JSON)?["content"] as? JSON)?["application/json"] as? JSON)?["schema"] as? JSON)
        let alternatives = try #require(v1Schema["anyOf"] as? [JSON], "the 400 schema offers FCM's body beside the control API's")
        #expect(alternatives.contains { $0["$ref"] as? String == "#/components/schemas/Error" })
        #expect(alternatives.contains { $0["type"] as? String == "object" && $0["properties"] == nil })
        #expect(v1Responses["default"] != nil, "any other status FCM answers with")

        // The control API's own: an unknown project.
        let legacy = try await Self.post(control + "/_emulator/front-doors/fcm/legacy/no-such-project", "{}")
        #expect(legacy.status == 404 && legacy.body["error"] as? String == "no FCM project no-such-project", "\(legacy)")
        let legacyResponses = try responses("/_emulator/front-doors/fcm/legacy/{projectId}")
        #expect(legacyResponses["404"] != nil && legacyResponses["409"] != nil && legacyResponses["default"] != nil)

        // OneSignal's refusal of a notification with no audience: its `{"errors": [...]}`.
        let oneSignal = try await Self.post(control + "/_emulator/front-doors/onesignal", "{}")
        #expect(oneSignal.status == 400 && oneSignal.body["errors"] is [String], "\(oneSignal)")
        let oneSignalResponses = try responses("/_emulator/front-doors/onesignal")
        #expect(oneSignalResponses["404"] != nil && oneSignalResponses["default"] != nil)
    }
}
