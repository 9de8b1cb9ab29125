import APNsEmulator
import APNsProtocol
import H2Transport
import StateStore

/// `/_emulator/tokens`: device tokens, as a device's registration would issue them, and their end of life.
extension ControlAPI {
    /// `GET /tokens?bundleId=&environment=` → `{"tokens": [...]}`, oldest first.
    func listTokens(_ request: ControlRequest) throws -> HTTP1Response {
        var query = request.query
        let bundleId = query.string("bundleId")
        let environmentText = query.string("environment")
        try query.finish()
        var environment: APNsEnvironment?
        if let environmentText {
            guard let e = APNsEnvironment(rawValue: environmentText) else {
                throw ControlAPIError.invalidQuery("environment", mustBe: "\"production\" or \"sandbox\"",
                                                   got: environmentText)
            }
            environment = e
        }
        return try ControlAPIResponse.json("tokens", services.tokens.all(bundleId: bundleId, environment: environment))
    }

    /// `GET /tokens/{token}` → the record, or 404.
    func getToken(_ request: ControlRequest) throws -> HTTP1Response {
        try ControlAPIResponse.json(try existingToken(request))
    }

    /// `DELETE /tokens/{token}` → 204, or 404. The token is then unknown (pushes get BadDeviceToken).
    func deleteToken(_ request: ControlRequest) throws -> HTTP1Response {
        let token = request.parameter("token")
        guard try persisting({ try services.tokens.remove(token) }) else {
            throw ControlAPIError.notFound("no device token '\(token)'")
        }
        return ControlAPIResponse.noContent()
    }

    /// `POST /tokens` → 201 with the record; with `token`, that exact token is registered (200 when it
    /// replaced an existing one), else a fresh random one is issued.
    func createToken(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        let bundleId = body.string("bundleId", required: true)
        let environmentText = body.string("environment", required: true)
        let kindText = body.string("kind")
        let tokenText = body.string("token")
        try body.finish()

        let bundle = bundleId ?? ""
        try ControlAPIValidation.topic(bundle, field: "bundleId")
        let environment = try Self.enumValue(APNsEnvironment.self, environmentText, field: "environment") ?? .sandbox
        let kind = try Self.enumValue(DeviceTokenKind.self, kindText, field: "kind") ?? .app
        let token = try tokenText.map { text throws(ControlAPIError) in
            try ControlAPIValidation.deviceToken(text, field: "token")
        }

        let now = services.clock.now()
        let record: DeviceTokenRecord
        var replaced = false
        if let token {
            replaced = services.tokens.lookup(token) != nil
            record = DeviceTokenRecord(token: token, bundleId: bundle, environment: environment, kind: kind,
                                       createdAt: now)
            try persisting { try services.tokens.register(record) }
        } else {
            record = try persisting {
                try services.tokens.issue(bundleId: bundle, environment: environment, kind: kind, now: now)
            }
        }
        return try ControlAPIResponse.json(
            record, status: replaced ? 200 : 201,
            headers: [H2Header("location", "\(Self.pathPrefix)/tokens/\(record.token)")])
    }

    /// `POST /tokens:batch {"count", "bundleId", "environment", "kind"?}` → 201 `{"tokens": [hex…]}`: fresh random
    /// tokens by the thousand (a load test's recipients), without one request each.
    func createTokens(_ request: ControlRequest) throws -> HTTP1Response {
        let body = try request.body()
        let count = body.int64("count", required: true)
        let bundleId = body.string("bundleId", required: true)
        let environmentText = body.string("environment", required: true)
        let kindText = body.string("kind")
        try body.finish()
        guard let count, (1...Int64(Self.tokenBatchLimit)).contains(count) else {
            throw ControlAPIError.invalid("count", mustBe: "an integer from 1 to \(Self.tokenBatchLimit)",
                                          got: count.map { "\($0)" })
        }
        let bundle = bundleId ?? ""
        try ControlAPIValidation.topic(bundle, field: "bundleId")
        let environment = try Self.enumValue(APNsEnvironment.self, environmentText, field: "environment") ?? .sandbox
        let kind = try Self.enumValue(DeviceTokenKind.self, kindText, field: "kind") ?? .app
        let now = services.clock.now()
        var tokens: [String] = []
        tokens.reserveCapacity(Int(count))
        for _ in 0..<count {
            tokens.append(try persisting {
                try services.tokens.issue(bundleId: bundle, environment: environment, kind: kind, now: now)
            }.token)
        }
        return try ControlAPIResponse.json("tokens", tokens, status: 201)
    }

    /// Most tokens one `POST /tokens:batch` issues.
    static let tokenBatchLimit = 100_000

    /// `POST /tokens/{token}/unregister {"at"?}` → 200 with `unregisteredAt` set: pushes now get 410
    /// Unregistered with that timestamp (the app was uninstalled).
    func unregisterToken(_ request: ControlRequest) throws -> HTTP1Response {
        let (token, at) = try endOfLife(request)
        let record = try persisting { try services.tokens.unregister(token, at: at) }
        guard let record else { throw ControlAPIError.notFound("no device token '\(token)'") }
        return try ControlAPIResponse.json(record)
    }

    /// `POST /tokens/{token}/expire {"at"?}` → 200 with `expiredAt` set: pushes now get 410 ExpiredToken.
    func expireToken(_ request: ControlRequest) throws -> HTTP1Response {
        let (token, at) = try endOfLife(request)
        let record = try persisting { try services.tokens.expire(token, at: at) }
        guard let record else { throw ControlAPIError.notFound("no device token '\(token)'") }
        return try ControlAPIResponse.json(record)
    }

    /// The path's token (lowercased, known to exist) and the body's `at` (default: the clock's now).
    private func endOfLife(_ request: ControlRequest) throws -> (token: String, at: Millis) {
        let body = try request.body()
        let at = body.int64("at")
        try body.finish()
        if let at { try ControlAPIValidation.millis(at, field: "at") }
        let record = try existingToken(request)
        return (record.token, at ?? services.clock.now())
    }

    /// The record for the path's `{token}` (either case), or 404.
    private func existingToken(_ request: ControlRequest) throws(ControlAPIError) -> DeviceTokenRecord {
        let token = request.parameter("token")
        guard let record = services.tokens.lookup(DeviceToken.canonical(token)) else {
            throw .notFound("no device token '\(token)'")
        }
        return record
    }
}
