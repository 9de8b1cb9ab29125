import APNsProtocol
import Foundation
import H2Transport

/// A journal entry as the hot path stores it: the request's headers and body packed into one buffer and
/// what validation already computed. Turning it into text (`JournalEntry`) waits until someone reads the
/// journal, so recording a push costs a few retains instead of ~30 string allocations.
public struct JournalRecord: Sendable {
    public enum AuthMode: String, Sendable { case token, certificate, none }

    public var receivedAt: Millis
    public var connectionId: UInt64
    public var environment: APNsEnvironment
    /// Headers and body in one exact-size buffer (one allocation per kept entry).
    public var request: PackedRequest
    public var summary: RequestSummary
    public var authMode: AuthMode
    /// The auth reason that refused the request, if auth was the cause.
    public var authRejection: APNsReason?
    public var status: Int
    /// The reason as sent on the wire (policy spelling).
    public var reason: String?
    public var timestamp: Millis?
    public var apnsId: String
    public var apnsUniqueId: String?
    public var durationMicros: Int64
    public var faultId: String?

    public init(receivedAt: Millis, connectionId: UInt64, environment: APNsEnvironment, request: PackedRequest,
                summary: RequestSummary, authMode: AuthMode, authRejection: APNsReason?, status: Int,
                reason: String?, timestamp: Millis?, apnsId: String, apnsUniqueId: String?, durationMicros: Int64,
                faultId: String?) {
        self.receivedAt = receivedAt
        self.connectionId = connectionId
        self.environment = environment
        self.request = request
        self.summary = summary
        self.authMode = authMode
        self.authRejection = authRejection
        self.status = status
        self.reason = reason
        self.timestamp = timestamp
        self.apnsId = apnsId
        self.apnsUniqueId = apnsUniqueId
        self.durationMicros = durationMicros
        self.faultId = faultId
    }

    /// The device token for filtering: as validated, or read from the path of a request that failed early.
    var token: String? {
        summary.token ?? DeviceToken.pathToken(in: request.headers)
    }

    /// The text form the control API serves.
    func entry(id: Int64) -> JournalEntry {
        let headers = request.headers
        let body = request.body
        var pairs: [[String]] = []
        pairs.reserveCapacity(headers.count)
        var method = "", path = ""
        for h in headers {
            if h.name == ":method" { method = h.value }
            if h.name == ":path" { path = h.value }
            pairs.append([h.name, h.name == "authorization" ? Self.redact(h.value) : h.value])
        }
        var warnings = summary.warnings
        if let detail = summary.authDetail { warnings.append("auth: \(detail)") }
        return JournalEntry(
            id: id, receivedAt: receivedAt, connectionId: connectionId, environment: environment, method: method,
            path: path, token: token, topic: summary.topic, pushType: summary.pushType?.rawValue,
            priority: summary.priority, expiration: summary.expiration, collapseId: summary.collapseId, headers: pairs,
            payload: body.isEmpty ? nil : String(validating: body, as: UTF8.self), authMode: authMode.rawValue,
            authOutcome: authRejection?.rawValue ?? "accepted", teamId: summary.teamId, keyId: summary.keyId,
            status: status, reason: reason, timestamp: timestamp, apnsId: apnsId, apnsUniqueId: apnsUniqueId,
            durationMicros: durationMicros, faultId: faultId, warnings: warnings)
    }

    /// Keeps the JWT's header (key id, alg) visible and hides claims and signature.
    static func redact(_ authorization: String) -> String {
        guard let dot = authorization.firstIndex(of: ".") else { return "bearer <redacted>" }
        return String(authorization[..<dot]) + ".<redacted>"
    }
}
