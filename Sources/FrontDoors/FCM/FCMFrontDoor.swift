import APNsEmulator
import EmulatorControl
import Foundation
import H2Transport

/// FCM's endpoints: the OAuth token endpoint (`POST /token`), the HTTP v1 send
/// (`POST /v1/projects/{project}/messages:send`) and the legacy send (`POST /fcm/send`).
package struct FCMFrontDoor: Sendable {
    package let projects: FCMProjects
    let relay: APNsRelay
    let log: FrontDoorLog
    let clock: any EmulatorClock
    /// The legacy API answers as after its shutdown (every target `DeprecatedApi`).
    let legacyShutDown: Bool

    /// Bodies past this are refused before parsing: FCM and OneSignal take a few KiB of payload, APNs 4 KiB.
    static let maxBodyBytes = 64 * 1024
    /// What the message log keeps of a relayed payload (APNs refuses anything larger anyway).
    static let loggedPayloadBytes = 5 * 1024

    func handle(_ request: HTTP1Request) -> HTTP1Response? {
        let path = request.path
        if path == "/token" || path == "/oauth2/v4/token" {
            guard request.method == "POST" else { return Self.methodNotAllowed }
            let answer = GoogleTokenEndpoint(projects: projects).exchange(form: request.body, nowSeconds: clock.now() / 1000)
            return Self.json(answer.status, answer.body)
        }
        if path.hasPrefix("/v1/projects/"), path.hasSuffix("/messages:send") {
            guard request.method == "POST" else { return Self.methodNotAllowed }
            let project = String(path.dropFirst("/v1/projects/".count).dropLast("/messages:send".count))
            return sendV1(request, project: project)
        }
        if path == "/fcm/send" {
            guard request.method == "POST" else { return Self.methodNotAllowed }
            return sendLegacy(request)
        }
        return nil
    }

    // MARK: HTTP v1

    private func sendV1(_ request: HTTP1Request, project projectId: String) -> HTTP1Response {
        let now = clock.now()
        var entry = FrontDoorMessage(id: Self.messageId(now), receivedAt: now, api: "fcm-v1", project: projectId, status: 200, notes: [])
        func fail(_ error: FCMError) -> HTTP1Response {
            entry.status = error.status
            entry.error = "\(error.fcmCode?.rawValue ?? error.apiStatus): \(error.message)"
            log.append(entry)
            return Self.json(error.status, error.body)
        }
        // Google checks the credential first: a project the token may not send to is 403, whether or not it exists.
        let authorization = request.header("authorization") ?? ""
        guard authorization.lowercased().hasPrefix("bearer ") else { return fail(.unauthenticated) }
        do {
            try projects.authorize(bearer: String(authorization.dropFirst(7)), projectId: projectId, now: now / 1000)
        } catch {
            return fail(error)
        }
        guard let project = projects.project(projectId) else {
            return fail(FCMError(status: 404, apiStatus: "NOT_FOUND", "Project \(projectId) is not a project of this emulator"
                                 + " (PUT /_emulator/fcm/projects/\(projectId) adds it)."))
        }
        guard !request.bodyExceededLimit, request.body.count <= Self.maxBodyBytes else {
            return fail(.invalid("Request payload size exceeds the limit: \(Self.maxBodyBytes) bytes."))
        }
        let document: JSONDocument
        switch JSONDocument.parse(request.body, budget: 16 << 20) {
        case .success(let d): document = d
        case .failure(let e): return fail(.invalid("Invalid JSON payload received. \(e)"))
        }
        guard let message = document.value["message"] else { return fail(.invalid("Invalid JSON payload received. message is required.")) }
        entry.target = message["token"]?.string ?? message["fid"]?.string
        let dryRun = document.value["validate_only"]?.bool == true
        let outcome: Result<RelayedPush, NotRelayed>
        do {
            outcome = try FCMv1Translator.translate(message, projectNumber: project.projectNumber, messageId: entry.id,
                                                    nowSeconds: now / 1000)
        } catch {
            return fail(error)
        }
        let name = "projects/\(projectId)/messages/" + (dryRun ? "fake_message_id" : entry.id)
        switch outcome {
        case .failure(let notRelayed):
            entry.notes = [notRelayed.reason] + notRelayed.notes
        case .success(let push):
            entry.apns = Self.describe(push)
            entry.notes = push.notes
            if dryRun {
                entry.notes.append("validate_only: checked and not sent")
                break
            }
            switch relay.send(push, keyId: project.apnsKeyId, teamId: project.apnsTeamId, key: project.apnsKey, nowSeconds: now / 1000) {
            case .failure(let error): return fail(error)
            case .success(let answer):
                entry.apnsStatus = answer.status
                entry.apnsReason = answer.reason
                entry.apnsId = answer.apnsId
                if let error = answer.fcmError { return fail(error) }
            }
        }
        log.append(entry)
        return Self.json(200, JSONText.bytes(["name": name]))
    }

    // MARK: Legacy

    private func sendLegacy(_ request: HTTP1Request) -> HTTP1Response {
        let now = clock.now()
        let authorization = request.header("authorization") ?? ""
        let key = authorization.lowercased().hasPrefix("key=") ? String(authorization.dropFirst(4)) : nil
        guard let key, let project = projects.project(serverKey: key) else {
            return HTTP1Response(status: 401, headers: [H2Header("content-type", "text/plain; charset=utf-8")],
                                 body: Array("Unauthorized: the Authorization header must be key=<the project's legacy server key>\n".utf8))
        }
        guard !request.bodyExceededLimit, request.body.count <= Self.maxBodyBytes else {
            return Self.text(400, "The request body is over \(Self.maxBodyBytes) bytes")
        }
        let document: JSONDocument
        switch JSONDocument.parse(request.body, budget: 16 << 20) {
        case .success(let d) where d.value.kind == .object: document = d
        case .success: return Self.text(400, "JSON_PARSING_ERROR: the body must be a JSON object")
        case .failure(let e): return Self.text(400, "JSON_PARSING_ERROR: \(e)")
        }
        let body = document.value
        var targets: [String?] = []
        if let to = body["to"] { targets = [to.string] } else if let ids = body["registration_ids"] {
            targets = ids.elements.map(\.string)
            guard (1...1000).contains(targets.count) else { return Self.text(400, "registration_ids must hold 1 to 1000 tokens") }
        } else {
            targets = [nil]
        }
        let multicast = Int64.random(in: 1_000_000_000_000_000...Int64.max)
        var results: [[String: Any]] = []
        for target in targets {
            let id = Self.messageId(clock.now())
            var entry = FrontDoorMessage(id: id, receivedAt: now, api: "fcm-legacy", project: project.projectId, target: target,
                                         status: 200, notes: [])
            defer { log.append(entry) }
            if legacyShutDown {
                entry.error = "DeprecatedApi: the legacy API is shut down (serve --fcm-legacy-api shut-down)"
                results.append(["error": "DeprecatedApi"])
                continue
            }
            guard let target else {
                entry.error = "MissingRegistration"
                results.append(["error": "MissingRegistration"])
                continue
            }
            let outcome: Result<RelayedPush, NotRelayed>
            do {
                outcome = try FCMLegacyTranslator.translate(body, target: target, projectNumber: project.projectNumber, messageId: id,
                                                            nowSeconds: now / 1000)
            } catch {
                entry.error = "\(error.error): \(error.detail)"
                results.append(["error": error.error])
                continue
            }
            switch outcome {
            case .failure(let notRelayed):
                entry.notes = [notRelayed.reason] + notRelayed.notes
                results.append(["message_id": id])
            case .success(let push):
                entry.apns = Self.describe(push)
                entry.notes = push.notes
                if body["dry_run"]?.bool == true {
                    entry.notes.append("dry_run: checked and not sent")
                    results.append(["message_id": "fake_message_id"])
                    continue
                }
                switch relay.send(push, keyId: project.apnsKeyId, teamId: project.apnsTeamId, key: project.apnsKey, nowSeconds: now / 1000) {
                case .failure(let error):
                    entry.error = error.message
                    results.append(["error": Self.legacyName(error)])
                case .success(let answer):
                    entry.apnsStatus = answer.status
                    entry.apnsReason = answer.reason
                    entry.apnsId = answer.apnsId
                    if let error = answer.fcmError {
                        entry.error = error.message
                        results.append(["error": Self.legacyName(error)])
                    } else {
                        results.append(["message_id": id])
                    }
                }
            }
        }
        let failures = results.filter { $0["error"] != nil }.count
        return Self.json(200, JSONText.bytes(["multicast_id": multicast, "success": results.count - failures, "failure": failures,
                                              "canonical_ids": 0, "results": results]))
    }

    /// The legacy API's name for an error the v1 API calls `error`.
    static func legacyName(_ error: FCMError) -> String {
        switch error.fcmCode {
        case .unregistered: "NotRegistered"
        case .thirdPartyAuthError: "InvalidApnsCredential"
        case .quotaExceeded: "DeviceMessageRateExceeded"
        case .unavailable: "Unavailable"
        case .senderIdMismatch: "MismatchSenderId"
        case .invalidArgument: error.message.contains("PayloadTooLarge") ? "MessageTooBig" : "InvalidParameters"
        default: "InternalServerError"
        }
    }

    // MARK: Helpers

    /// FCM's message id shape: `0:<microseconds>%<16 hex digits>`.
    static func messageId(_ nowMillis: Int64) -> String {
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        return "0:\(nowMillis)\(String(format: "%03d", Int.random(in: 0...999)))%\(String(repeating: "0", count: 16 - suffix.count))\(suffix)"
    }

    static func describe(_ push: RelayedPush) -> FrontDoorMessage.RelayedRequest {
        var headers: [String: String] = [:]
        for h in push.headers { headers[h.name] = h.value }
        let payload = push.payload.count <= loggedPayloadBytes
            ? String(decoding: push.payload, as: UTF8.self)
            : String(decoding: push.payload.prefix(loggedPayloadBytes), as: UTF8.self) + "… (\(push.payload.count) bytes)"
        return .init(token: push.apnsToken, environment: push.sandbox ? "sandbox" : "production", headers: headers, payload: payload)
    }

    static func json(_ status: Int, _ body: [UInt8]) -> HTTP1Response {
        HTTP1Response(status: status, headers: [H2Header("content-type", "application/json; charset=UTF-8")], body: body)
    }

    static func text(_ status: Int, _ text: String) -> HTTP1Response {
        HTTP1Response(status: status, headers: [H2Header("content-type", "text/plain; charset=utf-8")], body: Array((text + "\n").utf8))
    }

    static let methodNotAllowed = text(405, "Method Not Allowed")
}
