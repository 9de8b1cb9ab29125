import APNsEmulator
import APNsProtocol
import OpenSSLSupport
import StateStore

/// The value rules of the control API, shared by the endpoints that create records and by state import,
/// so a snapshot can never hold what `POST` would refuse.
///
/// Every check takes the field path to blame (`keyId`, `keys[2].keyId`) and throws a 400 naming it.
package enum ControlAPIValidation {
    /// Apple's topic-specific keys list at most this many topics.
    package static let maxTopicsPerKey = 400
    /// Longest bundle id or topic accepted (Apple's bundle ids stay far below).
    package static let maxTopicLength = 255
    /// Fault ids appear in paths (`DELETE /faults/{id}`), so they are short and URL-safe.
    package static let maxFaultIdLength = 64

    /// A 10-character Apple identifier (key id, team id): `A-Z` and `0-9`.
    package static func appleIdentifier(_ value: String, field: String) throws(ControlAPIError) {
        let ok = value.utf8.count == 10 && value.utf8.allSatisfy { isUpperAlnum($0) }
        guard ok else {
            throw .invalid(field, mustBe: "10 characters A-Z or 0-9, like Apple's (e.g. \"ABC123DEFG\")",
                           got: "\"\(value)\"")
        }
    }

    /// A device token: even-length hex, 8 to 255 bytes (the rule the APNs side applies). Returns it lowercased.
    package static func deviceToken(_ value: String, field: String) throws(ControlAPIError) -> String {
        guard DeviceToken.isWellFormed(value) else {
            let r = DeviceToken.byteRange
            throw .invalid(field, mustBe: "a hex device token of \(r.lowerBound)–\(r.upperBound) bytes"
                           + " (\(r.lowerBound * 2)–\(r.upperBound * 2) hex digits, even count)", got: "\"\(value)\"")
        }
        return DeviceToken.canonical(value)
    }

    /// A bundle id or topic: letters, digits, `.`, `-`, `_`, at most 255 characters.
    package static func topic(_ value: String, field: String) throws(ControlAPIError) {
        let ok = !value.isEmpty && value.utf8.count <= maxTopicLength && value.utf8.allSatisfy {
            isUpperAlnum($0) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
        guard ok else {
            throw .invalid(field, mustBe: "a bundle id such as \"com.example.app\" (letters, digits, '.', '-', '_';"
                           + " 1–\(maxTopicLength) characters)", got: "\"\(value)\"")
        }
    }

    /// One of Apple's reason strings, exactly as sent on the wire.
    package static func reason(_ value: String, field: String) throws(ControlAPIError) -> APNsReason {
        guard let reason = APNsReason(rawValue: value) else {
            throw .invalid(field, mustBe: "an APNs reason string (one of: "
                           + APNsReason.allCases.map(\.rawValue).joined(separator: ", ") + ")", got: "\"\(value)\"")
        }
        return reason
    }

    /// A fault id: 1–64 characters of `A-Z a-z 0-9 . _ -`.
    package static func faultId(_ value: String, field: String) throws(ControlAPIError) {
        let ok = !value.isEmpty && value.utf8.count <= maxFaultIdLength && value.utf8.allSatisfy {
            isUpperAlnum($0) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
        }
        guard ok else {
            throw .invalid(field, mustBe: "1–\(maxFaultIdLength) characters of A-Z, a-z, 0-9, '.', '_' or '-'",
                           got: "\"\(value)\"")
        }
    }

    /// A SubjectPublicKeyInfo PEM of a P-256 key (the only curve ES256 uses).
    package static func publicKeyPEM(_ pem: String, field: String) throws(ControlAPIError) {
        if pem.contains("PRIVATE KEY") {
            throw .invalid(field, mustBe: "a public key PEM ('BEGIN PUBLIC KEY'); this is a private key: send"
                           + " `openssl pkey -in AuthKey.p8 -pubout`, or omit the field to have a pair generated")
        }
        guard let key = try? PublicKey(pem: pem) else {
            throw .invalid(field, mustBe: "a PEM public key ('-----BEGIN PUBLIC KEY-----' …)")
        }
        guard key.rawRepresentation.count == 65 else {
            throw .invalid(field, mustBe: "a P-256 (prime256v1) key, the curve ES256 signs with")
        }
    }

    /// A millisecond timestamp or duration: not negative, and small enough that adding it to now cannot overflow.
    package static func millis(_ value: Int64, field: String, minimum: Int64 = 0) throws(ControlAPIError) {
        guard value >= minimum, value <= maxMillis else {
            throw .invalid(field, mustBe: "an integer from \(minimum) to \(maxMillis) (milliseconds)", got: "\(value)")
        }
    }

    /// Longest injected delay: ten minutes, past every client's request timeout.
    package static let maxDelayMillis: Int64 = 600_000

    /// About 3 000 years in milliseconds: far past any test, far below `Int64.max`.
    package static let maxMillis: Int64 = 100_000_000_000_000

    private static func isUpperAlnum(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
    }
}

// MARK: Whole records

extension ControlAPIValidation {
    /// A key record's own fields and how they fit together: `environment` only for team-scoped and topic
    /// keys, `topics` only (and required) for topic keys.
    /// - Parameter prefix: Prepended to field names (`""` for `POST /keys`, `"keys[2]."` in a snapshot).
    package static func key(_ record: ProviderKeyRecord, prefix: String = "") throws(ControlAPIError) {
        try appleIdentifier(record.keyId, field: prefix + "keyId")
        try appleIdentifier(record.teamId, field: prefix + "teamId")
        switch record.kind {
        case .team:
            if record.environment != nil {
                throw .invalidField(prefix + "environment", message: "field '\(prefix)environment' must be absent for"
                                    + " kind 'team' (the default): team keys work in both environments; use kind"
                                    + " 'team-scoped' or 'topic' for a one-environment key")
            }
        case .teamScoped, .topic:
            if record.environment == nil {
                throw .missing(prefix + "environment", "\"production\" or \"sandbox\", required for kind"
                               + " '\(record.kind.rawValue)'")
            }
        }
        // Topic keys sign for their topics only; on any key the topics are its team's apps, which other teams'
        // keys then may not push to (TopicDisallowed).
        if record.kind == .topic && record.topics.isEmpty {
            throw .missing(prefix + "topics", "a non-empty array of bundle ids, required for kind 'topic'")
        }
        guard record.topics.count <= maxTopicsPerKey else {
            throw .invalid(prefix + "topics", mustBe: "at most \(maxTopicsPerKey) topics", got: "\(record.topics.count)")
        }
        var seen: Set<String> = []
        for (i, t) in record.topics.enumerated() {
            try topic(t, field: "\(prefix)topics[\(i)]")
            guard seen.insert(t).inserted else {
                throw .invalidField("\(prefix)topics[\(i)]", message: "topic '\(t)' is listed twice")
            }
        }
        if let related = record.relatedKeyId {
            try appleIdentifier(related, field: prefix + "relatedKeyId")
            guard related != record.keyId else {
                throw .invalidField(prefix + "relatedKeyId", message: "a key cannot be related to itself")
            }
        }
        try publicKeyPEM(record.publicKeyPem, field: prefix + "publicKeyPem")
    }

    /// A token record: well-formed lowercase hex, a valid bundle id, non-negative times.
    package static func token(_ record: DeviceTokenRecord, prefix: String = "") throws(ControlAPIError) {
        let canonical = try deviceToken(record.token, field: prefix + "token")
        guard canonical == record.token else {
            throw .invalid(prefix + "token", mustBe: "lowercase hex", got: "\"\(record.token)\"")
        }
        try topic(record.bundleId, field: prefix + "bundleId")
        try millis(record.createdAt, field: prefix + "createdAt")
        if let at = record.unregisteredAt { try millis(at, field: prefix + "unregisteredAt") }
        if let at = record.expiredAt { try millis(at, field: prefix + "expiredAt") }
    }

    /// A fault rule: URL-safe id, valid token and topic filters, an action with Apple's reason strings.
    package static func fault(_ rule: FaultRule, prefix: String = "") throws(ControlAPIError) {
        try faultId(rule.id, field: prefix + "id")
        if let token = rule.token {
            let canonical = try deviceToken(token, field: prefix + "token")
            guard canonical == token else {
                throw .invalid(prefix + "token", mustBe: "lowercase hex", got: "\"\(token)\"")
            }
        }
        if let t = rule.topic { try topic(t, field: prefix + "topic") }
        switch rule.action {
        case .reason(let r): _ = try reason(r, field: prefix + "action.reason")
        case .goAway(let r): _ = try reason(r, field: prefix + "action.reason")
        case .delay(let ms):
            guard ms >= 0, ms <= maxDelayMillis else {
                throw .invalid(prefix + "action.delayMs",
                               mustBe: "an integer from 0 to \(maxDelayMillis) (milliseconds)", got: "\(ms)")
            }
        case .resetStream, .shutdown: break
        }
        if let remaining = rule.remaining, remaining < 0 {
            throw .invalid(prefix + "remaining", mustBe: "an integer ≥ 0", got: "\(remaining)")
        }
        if let at = rule.expiresAt { try millis(at, field: prefix + "expiresAt") }
        try millis(rule.createdAt, field: prefix + "createdAt")
    }
}
