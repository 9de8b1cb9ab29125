import APNsEmulator
import Foundation
import H2Transport
import StateStore

/// `/_emulator/faults`: injected misbehaviour for APNs requests matching a token and/or topic.
extension ControlAPI {
    /// `GET /faults` → `{"faults": [...]}` in the order they are tried (exhausted rules stay listed).
    func listFaults(_ request: ControlRequest) throws -> HTTP1Response {
        try ControlAPIResponse.json("faults", services.faults.all())
    }

    /// `GET /faults/{id}` → the rule, or 404.
    func getFault(_ request: ControlRequest) throws -> HTTP1Response {
        let id = request.parameter("id")
        guard let rule = services.faults.all().first(where: { $0.id == id }) else {
            throw ControlAPIError.notFound("no fault with id '\(id)'")
        }
        return try ControlAPIResponse.json(rule)
    }

    /// `DELETE /faults/{id}` → 204, or 404.
    func deleteFault(_ request: ControlRequest) throws -> HTTP1Response {
        let id = request.parameter("id")
        guard try persisting({ try services.faults.remove(id: id) }) else {
            throw ControlAPIError.notFound("no fault with id '\(id)'")
        }
        return ControlAPIResponse.noContent()
    }

    /// `DELETE /faults` → 204 once no rule is left.
    func deleteAllFaults(_ request: ControlRequest) throws -> HTTP1Response {
        for rule in services.faults.all() {
            _ = try persisting { try services.faults.remove(id: rule.id) }
        }
        return ControlAPIResponse.noContent()
    }

    /// `POST /faults` → 201 with the rule (200 when it replaced a rule with the same id).
    ///
    /// `count` becomes the rule's `remaining`; `durationMs` becomes `expiresAt` = now + duration.
    func createFault(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        let id = body.string("id")
        let token = body.string("token")
        let topic = body.string("topic")
        let actionBody = body.object("action", required: true)
        let action = actionBody.map { Self.readAction($0) }
        let count = body.int64("count")
        let durationMs = body.int64("durationMs")
        try body.finish()

        if let count, count < 1 {
            throw ControlAPIError.invalid("count", mustBe: "an integer ≥ 1 (requests the fault hits)",
                                          got: "\(count)")
        }
        if let durationMs { try ControlAPIValidation.millis(durationMs, field: "durationMs", minimum: 1) }
        let canonicalToken = try token.map { text throws(ControlAPIError) in
            try ControlAPIValidation.deviceToken(text, field: "token")
        }
        guard let action = try action?() else { throw ControlAPIError.missing("action", "an object") }

        let now = services.clock.now()
        let rule = FaultRule(
            id: id ?? "fault-" + UUID().uuidString.lowercased(), token: canonicalToken, topic: topic, action: action,
            remaining: count.map { Int($0) }, expiresAt: durationMs.map { now + $0 }, createdAt: now)
        try ControlAPIValidation.fault(rule)

        let replaced = services.faults.all().contains { $0.id == rule.id }
        try persisting { try services.faults.add(rule) }
        return try ControlAPIResponse.json(
            rule, status: replaced ? 200 : 201,
            headers: [H2Header("location", "\(Self.pathPrefix)/faults/\(rule.id)")])
    }

    /// Reads `action`'s fields for its `type` (so `delayMs` on a `reason` action is an unknown field) and
    /// returns the step that builds the action once `finish()` has passed.
    private static func readAction(_ body: JSONBodyReader) -> () throws(ControlAPIError) -> FaultAction {
        let type = body.string("type", required: true)
        switch type {
        case "reason":
            let reason = body.string("reason", required: true)
            return { () throws(ControlAPIError) in
                .reason(try ControlAPIValidation.reason(reason ?? "", field: "action.reason").rawValue)
            }
        case "delay":
            let ms = body.int64("delayMs", required: true)
            return { .delay(ms ?? 0) }
        case "goaway":
            let reason = body.string("reason")
            return { () throws(ControlAPIError) in
                .goAway(reason: try ControlAPIValidation.reason(reason ?? "Shutdown", field: "action.reason").rawValue)
            }
        case "reset-stream":
            return { .resetStream }
        case "shutdown":
            return { .shutdown }
        default:
            // With no valid type, every variant's field is plausible: report the type, not "unknown field".
            _ = (body.has("reason"), body.has("delayMs"))
            let got = type.map { "\"\($0)\"" }
            return { () throws(ControlAPIError) in
                guard let got else { throw .missing("action.type", "a string") }
                throw .invalid("action.type", mustBe: "one of \"reason\", \"delay\", \"reset-stream\", \"goaway\","
                               + " \"shutdown\"", got: got)
            }
        }
    }
}
