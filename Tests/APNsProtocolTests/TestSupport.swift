import APNsProtocol
import Foundation
import H2Transport
import OpenSSLSupport
import Synchronization

/// In-memory key and token lookups standing in for the emulator's registries.
final class MemoryLookups: VerificationKeyLookup, DeviceTokenLookup {
    private let keys = Mutex<[String: VerificationKey]>([:])
    private let tokens = Mutex<[String: DeviceTokenInfo]>([:])
    private let changes = Atomic<UInt64>(0)
    var generation: UInt64 { changes.load(ordering: .relaxed) }

    /// One generation for keys and tokens (both lookup protocols ask for it).
    func add(_ key: VerificationKey) {
        keys.withLock { $0[key.keyId] = key }
        changes.wrappingAdd(1, ordering: .relaxed)
    }
    func add(token: String, _ info: DeviceTokenInfo) {
        tokens.withLock { $0[token] = info }
        changes.wrappingAdd(1, ordering: .relaxed)
    }
    func verificationKey(for keyId: String) -> VerificationKey? { keys.withLock { $0[keyId] } }
    func teamsOwning(_ bundleId: String) -> Set<String>? {
        let teams = keys.withLock { Set($0.values.filter { $0.topics.contains(bundleId) }.map(\.teamId)) }
        return teams.isEmpty ? nil : teams
    }
    func deviceToken(_ token: String) -> DeviceTokenInfo? { tokens.withLock { $0[token] } }
}

/// A signing key with its verification record.
struct TestKey {
    let privateKey: PrivateKey
    let record: VerificationKey

    init(keyId: String = "KEY0000001", teamId: String = "TEAM000001", kind: ProviderKeyKind = .team,
         environment: APNsEnvironment? = nil, topics: Set<String> = [], relatedKeyId: String? = nil) throws {
        privateKey = try PrivateKey.generateP256()
        record = VerificationKey(keyId: keyId, teamId: teamId, kind: kind, environment: environment, topics: topics,
                                 relatedKeyId: relatedKeyId, publicKey: privateKey.publicKey)
    }

    func token(issuedAt: Int64, teamId: String? = nil) throws -> String {
        try ProviderTokenSigner.makeToken(privateKey: privateKey, keyId: record.keyId, teamId: teamId ?? record.teamId,
                                          issuedAt: issuedAt)
    }
}

/// A fixed "now" for validator tests: 2026-01-01T00:00:00Z.
let testNow: Int64 = 1_767_225_600_000
let appToken = String(repeating: "ab", count: 32)

/// Builds a push request the way a sender would put it on the wire.
func push(token: String = appToken, method: String = "POST", path: String? = nil, jwt: String? = nil,
          topic: String? = "com.example.app", headers: [(String, String)] = [], body: String = #"{"aps":{"alert":"hi"}}"#)
    -> H2Request
{
    var list = H2HeaderList()
    list.append(name: ":method", value: method)
    list.append(name: ":scheme", value: "https")
    list.append(name: ":authority", value: "api.push.apple.com")
    list.append(name: ":path", value: path ?? "/3/device/\(token)")
    if let jwt { list.append(name: "authorization", value: "bearer \(jwt)") }
    if let topic { list.append(name: "apns-topic", value: topic) }
    for (n, v) in headers { list.append(name: n, value: v) }
    return H2Request(headers: list, body: Array(body.utf8))
}

/// Validator plus the state a connection would carry.
struct Harness {
    let lookups = MemoryLookups()
    let verifier = ProviderTokenVerifier()
    var policy = ValidationPolicy()
    var environment: APNsEnvironment = .production
    var auth: ConnectionAuth = .token
    var state = ConnectionAuthState()
    var now = testNow

    mutating func run(_ request: H2Request) -> Result<AcceptedPush, Rejection> {
        let context = ValidationContext(environment: environment, auth: auth, now: now, policy: policy,
                                        keys: lookups, tokens: lookups, verifier: verifier)
        return APNsValidator().validate(request, context: context, state: &state)
    }

    /// The reason of a rejection, or nil when accepted.
    mutating func reason(_ request: H2Request) -> APNsReason? {
        if case .failure(let r) = run(request) { return r.reason }
        return nil
    }
}
