import APNsEmulator
import APNsProtocol
import H2Transport
import OpenSSLSupport
import StateStore

/// `/_emulator/keys`: the provider-token signing keys the emulator trusts.
extension ControlAPI {
    /// `GET /keys` → `{"keys": [...]}`, ordered by key id.
    func listKeys(_ request: ControlRequest) throws -> HTTP1Response {
        try ControlAPIResponse.json("keys", services.keys.all())
    }

    /// `GET /keys/{keyId}` → the key record, or 404.
    func getKey(_ request: ControlRequest) throws -> HTTP1Response {
        let keyId = request.parameter("keyId")
        guard let key = services.keys.lookup(keyId) else { throw ControlAPIError.notFound("no key with id '\(keyId)'") }
        return try ControlAPIResponse.json(key.record)
    }

    /// `DELETE /keys/{keyId}` → 204, or 404.
    func deleteKey(_ request: ControlRequest) throws -> HTTP1Response {
        let keyId = request.parameter("keyId")
        guard try persisting({ try services.keys.remove(keyId: keyId) }) else {
            throw ControlAPIError.notFound("no key with id '\(keyId)'")
        }
        return ControlAPIResponse.noContent()
    }

    /// `POST /keys` → 201 with the record (200 when it replaced a key with the same id).
    ///
    /// Without `publicKeyPem` a P-256 pair is generated and the response adds `privateKeyPem` (PKCS#8):
    /// the only time the private key leaves the emulator, which never stores it.
    func createKey(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        let teamId = body.string("teamId", required: true)
        let keyId = body.string("keyId", required: true)
        let kindText = body.string("kind")
        let environmentText = body.string("environment")
        let topics = body.stringArray("topics")
        let relatedKeyId = body.string("relatedKeyId")
        let publicKeyPem = body.string("publicKeyPem")
        try body.finish()

        let kind = try Self.enumValue(ProviderKeyKind.self, kindText, field: "kind") ?? .team
        let environment = try Self.enumValue(APNsEnvironment.self, environmentText, field: "environment")
        var record = ProviderKeyRecord(
            keyId: keyId ?? "", teamId: teamId ?? "", kind: kind, environment: environment, topics: topics ?? [],
            relatedKeyId: relatedKeyId, publicKeyPem: publicKeyPem ?? "", createdAt: services.clock.now())
        var privateKeyPem: String?
        if publicKeyPem == nil {
            let pair = try PrivateKey.generateP256()
            record.publicKeyPem = pair.publicKeyPEM
            privateKeyPem = pair.pkcs8PEM
        }
        try ControlAPIValidation.key(record)

        let replaced = services.keys.lookup(record.keyId) != nil
        try persisting { try services.keys.register(record) }
        return try ControlAPIResponse.json(
            CreatedKey(record: record, privateKeyPem: privateKeyPem), status: replaced ? 200 : 201,
            headers: [H2Header("location", "\(Self.pathPrefix)/keys/\(record.keyId)")])
    }

    /// The key record plus, for a generated pair, its private key.
    struct CreatedKey: Encodable {
        var record: ProviderKeyRecord
        var privateKeyPem: String?

        private enum CodingKeys: String, CodingKey { case privateKeyPem }

        func encode(to encoder: Encoder) throws {
            try record.encode(to: encoder)
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(privateKeyPem, forKey: .privateKeyPem)
        }
    }
}

extension ControlAPI {
    /// A string field that must be one of an enum's raw values; nil when the field was absent.
    static func enumValue<E: RawRepresentable & CaseIterable>(
        _ type: E.Type, _ text: String?, field: String
    ) throws(ControlAPIError) -> E? where E.RawValue == String {
        guard let text else { return nil }
        guard let value = E(rawValue: text) else {
            let choices = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw .invalid(field, mustBe: "one of \(choices)", got: "\"\(text)\"")
        }
        return value
    }

    /// Runs a registry change, reporting its failure (the state store refusing a write) as a 500.
    func persisting<T>(_ change: () throws -> T) throws(ControlAPIError) -> T {
        do {
            return try change()
        } catch let error as ControlAPIError {
            throw error
        } catch {
            throw .internalFailure("could not save the change: \(error)")
        }
    }
}
