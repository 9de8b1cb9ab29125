import APNsProtocol

/// A journal entry as the hot path hands it over: how the request was answered. The request itself and
/// what validation read from it (`RequestSummary`) go to `Journal.append` beside the record, lent rather
/// than copied in (no retain and release of a dozen fields per push). `Journal` copies what it keeps into
/// its byte arena at once (`JournalEntryEncoder`); text (`JournalEntry`) waits until someone reads it.
///
/// Noncopyable: it is built for one `Journal.append` and only lent from there on. As a copyable value the
/// handler copied it once more on its way into that call (a retain and release of each of its strings per
/// push); a noncopyable one can only be moved or borrowed.
public struct JournalRecord: ~Copyable, Sendable {
    public enum AuthMode: UInt8, Sendable {
        case token, certificate, none

        var text: String {
            switch self {
            case .token: return "token"
            case .certificate: return "certificate"
            case .none: return "none"
            }
        }
    }

    public var receivedAt: Millis
    public var connectionId: UInt64
    public var environment: APNsEnvironment
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

    public init(receivedAt: Millis, connectionId: UInt64, environment: APNsEnvironment, authMode: AuthMode,
                authRejection: APNsReason?, status: Int,
                reason: String?, timestamp: Millis?, apnsId: String, apnsUniqueId: String?, durationMicros: Int64,
                faultId: String?) {
        self.receivedAt = receivedAt
        self.connectionId = connectionId
        self.environment = environment
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

    /// Keeps the JWT's header (key id, alg) visible and hides claims and signature.
    static func redact(_ authorization: String) -> String {
        guard let dot = authorization.firstIndex(of: ".") else { return "bearer <redacted>" }
        return String(authorization[..<dot]) + ".<redacted>"
    }
}
