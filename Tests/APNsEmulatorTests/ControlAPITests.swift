import APNsProtocol
import Foundation
import H2Transport
import OpenSSLSupport
import StateStore
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

// MARK: Fixture shared by the ControlAPI*Tests files

/// A control API over fresh in-memory services on a manual clock, called directly (no sockets).
struct ControlAPIFixture {
    /// 2026-01-01T00:00:00Z: a fixed start so times in answers are predictable.
    static let start: Millis = 1_767_225_600_000

    let services: EmulatorServices
    let api: ControlAPI

    init(controlToken: String? = nil, clock: any EmulatorClock = ManualClock(start: Self.start),
         persistence: any StatePersistence = NoPersistence()) throws {
        var configuration = EmulatorConfiguration()
        configuration.registerSampleKey = false
        configuration.ephemeral = true
        services = try EmulatorServices(configuration: configuration, clock: clock, persistence: persistence)
        api = ControlAPI(services: services, controlToken: controlToken)
    }

    var manualClock: ManualClock? { services.clock as? ManualClock }

    func call(_ method: String, _ path: String, query: [(name: String, value: String)] = [], body: String? = nil,
              headers: [H2Header] = [], bodyExceededLimit: Bool = false) -> ControlReply {
        let request = HTTP1Request(method: method, path: path, query: query, headers: headers,
                                   body: Array((body ?? "").utf8), bodyExceededLimit: bodyExceededLimit)
        return ControlReply(api.handle(request))
    }

    func get(_ path: String, query: [(name: String, value: String)] = []) -> ControlReply {
        call("GET", path, query: query)
    }
    func post(_ path: String, _ body: String? = nil) -> ControlReply { call("POST", path, body: body) }
    func put(_ path: String, _ body: String) -> ControlReply { call("PUT", path, body: body) }
    func delete(_ path: String) -> ControlReply { call("DELETE", path) }

    /// Registers a generated team key and returns its record.
    @discardableResult
    func addKey(keyId: String = "KEY0000001", teamId: String = "TEAM000001") -> ControlReply {
        post("/_emulator/keys", #"{"teamId":"\#(teamId)","keyId":"\#(keyId)","kind":"team"}"#)
    }

    /// Registers `token` for `com.example.app` in sandbox.
    @discardableResult
    func addToken(_ token: String = ControlAPIFixture.token, bundleId: String = "com.example.app") -> ControlReply {
        post("/_emulator/tokens", #"{"bundleId":"\#(bundleId)","environment":"sandbox","token":"\#(token)"}"#)
    }

    static let token = String(repeating: "ab", count: 32)

    /// A P-256 public key PEM, as a user would send it.
    static func publicKeyPEM() throws -> String {
        try PrivateKey.generateP256().publicKeyPEM
    }
}

/// What the handler answered, with the body parsed when it is a JSON object.
struct ControlReply {
    let response: HTTP1Response

    init(_ response: HTTP1Response) { self.response = response }

    var status: Int { response.status }
    var text: String { String(decoding: response.body, as: UTF8.self) }
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }
    var error: String? { json["error"] as? String }
    /// The `field` of a 400: `.some(nil)` when present as null, nil when absent.
    var field: String?? {
        guard let value = json["field"] else { return nil }
        return .some(value as? String)
    }

    func header(_ name: String) -> String? {
        response.headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

// MARK: Routing, headers, errors and authentication

@Suite("ControlAPI: routing, headers, errors, auth")
struct ControlAPITests {
    @Test func healthAnswersExactlyStatusOk() throws {
        let f = try ControlAPIFixture()
        let reply = f.get("/_emulator/health")
        #expect(reply.status == 200)
        #expect(reply.text == #"{"status":"ok"}"#)
    }

    @Test func everyResponseCarriesVersionAndJSONContentType() throws {
        let f = try ControlAPIFixture()
        let replies = [
            f.get("/_emulator/health"), f.get("/_emulator/keys"), f.delete("/_emulator/journal"),
            f.get("/_emulator/nope"), f.call("PATCH", "/_emulator/keys"), f.post("/_emulator/keys", "{"),
            f.get("/_emulator/openapi.json"),
        ]
        for reply in replies {
            #expect(reply.header("x-apns-emulator") == EmulatorVersion.current)
            #expect(reply.header("content-type") == "application/json")
        }
    }

    @Test func noContentAnswersHaveNoBody() throws {
        let f = try ControlAPIFixture()
        let reply = f.delete("/_emulator/journal")
        #expect(reply.status == 204)
        #expect(reply.response.body.isEmpty)
    }

    @Test func unknownPathIs404WithJSONError() throws {
        let f = try ControlAPIFixture()
        let paths = ["/_emulator/nope", "/", "/3/device/abc", "/_emulator/keys/ABC/extra", "/_emulator/tokens//expire"]
        for path in paths {
            let reply = f.get(path)
            #expect(reply.status == 404, "\(path)")
            #expect(reply.error?.contains("no such control endpoint") == true, "\(path)")
        }
    }

    @Test func wrongMethodOnKnownPathIs405WithAllowHeader() throws {
        let f = try ControlAPIFixture()
        let reply = f.call("PATCH", "/_emulator/keys")
        #expect(reply.status == 405)
        #expect(reply.header("allow") == "GET, POST, HEAD")
        #expect(f.call("GET", "/_emulator/reset").header("allow") == "POST")
        #expect(f.call("POST", "/_emulator/journal/count").header("allow") == "GET, HEAD")
    }

    @Test func headIsAnsweredByTheGetRoute() throws {
        let f = try ControlAPIFixture()
        #expect(f.call("HEAD", "/_emulator/health").status == 200)
    }

    @Test func trailingSlashIsTolerated() throws {
        let f = try ControlAPIFixture()
        #expect(f.get("/_emulator/keys/").status == 200)
    }

    @Test func malformedJSONIs400WithNullField() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/keys", #"{"teamId": "#)
        #expect(reply.status == 400)
        #expect(reply.error?.hasPrefix("request body is not valid JSON") == true)
        #expect(reply.field == .some(nil))
        #expect(reply.text.contains(#""field":null"#))
    }

    @Test func nonObjectBodyIs400() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/keys", "[1,2]")
        #expect(reply.status == 400)
        #expect(reply.error == "request body must be a JSON object (got an array)")
        #expect(reply.field == .some(nil))
    }

    @Test func unknownFieldIs400NamingItAndTheExpectedOnes() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/keys", #"{"teamid":"TEAM000001","keyId":"KEY0000001"}"#)
        #expect(reply.status == 400)
        #expect(reply.field == "teamid")
        #expect(reply.error == "unknown field 'teamid' (expected one of: teamId, keyId, kind, environment, topics,"
                + " relatedKeyId, publicKeyPem)")
    }

    @Test func unknownQueryParameterIs400() throws {
        let f = try ControlAPIFixture()
        let reply = f.get("/_emulator/journal", query: [("tokn", "ab")])
        #expect(reply.status == 400)
        #expect(reply.field == "tokn")
        #expect(reply.error?.hasPrefix("unknown query parameter 'tokn' (expected one of: token, topic,") == true)
        #expect(f.get("/_emulator/keys", query: [("x", "1")]).status == 400)
    }

    @Test func repeatedQueryParameterIs400() throws {
        let f = try ControlAPIFixture()
        let reply = f.get("/_emulator/journal", query: [("status", "200"), ("status", "400")])
        #expect(reply.status == 400)
        #expect(reply.field == "status")
    }

    @Test func oversizedBodyIs413() throws {
        let f = try ControlAPIFixture()
        let reply = f.call("POST", "/_emulator/keys", bodyExceededLimit: true)
        #expect(reply.status == 413)
        #expect(reply.error == "request body too large: the control API takes at most 16 MiB")
    }

    @Test func aBodyOfTinyValuesPastTheParseBudgetIs413NotMemory() throws {
        let f = try ControlAPIFixture()
        // 3 MB of empty objects would take ~210 MiB as a tree: past the 128 MiB a control call may parse into.
        let body = #"{"x":["# + Array(repeating: "{}", count: 1_000_000).joined(separator: ",") + "]}"
        let reply = f.call("PUT", "/_emulator/shaping", body: body)
        #expect(reply.status == 413)
        #expect(reply.error == "request body too large: parsed, it would take more than 128 MiB of memory"
                + " (a control call's limit); send it in smaller parts")
        // The same shape, smaller, is parsed and refused for what it says.
        #expect(f.call("PUT", "/_emulator/shaping", body: #"{"x":[{},{}]}"#).field == "x")
    }

    @Test func anEmptyStateImportAndANulCharacterAreRefusedInPlainWords() throws {
        let f = try ControlAPIFixture()
        let empty = f.call("PUT", "/_emulator/state", body: "")
        #expect(empty.status == 400)
        #expect(empty.error?.hasPrefix("request body is not valid JSON: the body is empty") == true, "\(empty.text)")
        let nul = f.post("/_emulator/keys", #"{"teamId": "A\u0000B"}"#)
        #expect(nul.status == 400)
        #expect(nul.error?.hasPrefix(#"request body is not valid JSON: \u0000 is not allowed in a string"#) == true,
                "\(nul.text)")
    }

    @Test func aDuplicateFieldIs400NamingWhereItIs() throws {
        let f = try ControlAPIFixture()
        let reply = f.post("/_emulator/keys", "{\"teamId\": \"A\",\n \"teamId\": \"B\"}")
        #expect(reply.status == 400)
        #expect(reply.error?.hasPrefix("request body is not valid JSON: duplicate object key") == true, "\(reply.text)")
        #expect(reply.error?.contains("line 2") == true, "\(reply.text)")
    }

    @Test func persistenceFailureIs500WithTheMessageAndNoChange() throws {
        let f = try ControlAPIFixture(persistence: ControlAPIFailingPersistence())
        let reply = f.addKey()
        #expect(reply.status == 500)
        #expect(reply.error?.contains("disk full") == true)
        #expect(f.services.keys.all().isEmpty)
        #expect(f.post("/_emulator/reset").status == 500)
    }

    @Test func refusedRequestsChangeNothingAnywhere() throws {
        let f = try ControlAPIFixture()
        f.addKey()
        f.addToken()
        _ = f.post("/_emulator/faults", #"{"id":"f","action":{"type":"shutdown"}}"#)
        let state = f.services.exportState(), settings = f.services.journal.settings, now = f.services.clock.now()
        let token = ControlAPIFixture.token
        let refused: [(String, String, String)] = [
            ("POST", "/_emulator/keys", #"{"teamId":"TEAM000002","keyId":"KEY0000002","kind":"topic","environment":"sandbox","topics":[""]}"#),
            ("POST", "/_emulator/keys", #"{"teamId":"TEAM000002","keyId":"KEY0000001","kind":"team","oops":1}"#),
            ("POST", "/_emulator/tokens", #"{"bundleId":"com.example.app","environment":"sandbox","token":"\#(token)","x":1}"#),
            ("POST", "/_emulator/tokens/\(token)/unregister", #"{"at":"now"}"#),
            ("POST", "/_emulator/tokens/\(token)/expire", #"{"at":-5}"#),
            ("POST", "/_emulator/faults", #"{"id":"f","action":{"type":"reason","reason":"Nope"}}"#),
            ("PUT", "/_emulator/journal/settings", #"{"enabled":false,"capacity":0}"#),
            ("POST", "/_emulator/clock/advance", #"{"ms":5,"seconds":5}"#),
            ("POST", "/_emulator/reset", #"{"all":true}"#),
            ("PUT", "/_emulator/state", #"{"version":1,"keys":[],"tokens":[],"faults":[],"devices":[]}"#),
        ]
        for (method, path, body) in refused {
            let reply = f.call(method, path, body: body)
            #expect(reply.status == 400, "\(method) \(path) \(body): \(reply.text)")
        }
        #expect(f.services.exportState() == state)
        #expect(f.services.journal.settings == settings)
        #expect(f.services.clock.now() == now)
    }

    // MARK: Authentication

    @Test func controlTokenIsRequiredOnEveryEndpointButHealth() throws {
        let f = try ControlAPIFixture(controlToken: "s3cret")
        #expect(f.get("/_emulator/health").status == 200)
        for (method, path) in [("GET", "/_emulator/keys"), ("GET", "/_emulator/openapi.json"),
                               ("POST", "/_emulator/reset"), ("GET", "/_emulator/nope"), ("PATCH", "/_emulator/keys")] {
            let reply = f.call(method, path)
            #expect(reply.status == 401, "\(method) \(path)")
            #expect(reply.header("www-authenticate")?.hasPrefix("Bearer") == true)
            #expect(reply.error != nil)
            #expect(reply.field == nil, "401 bodies carry only error")
        }
    }

    @Test func rightBearerTokenIsAcceptedAndWrongOnesAreNot() throws {
        let f = try ControlAPIFixture(controlToken: "s3cret")
        func status(_ authorization: String) -> Int {
            f.call("GET", "/_emulator/keys", headers: [H2Header("Authorization", authorization)]).status
        }
        #expect(status("Bearer s3cret") == 200)
        #expect(status("bearer s3cret") == 200)
        #expect(status("Bearer s3cre") == 401)
        #expect(status("Bearer s3cret2") == 401)
        #expect(status("Basic s3cret") == 401)
        #expect(status("s3cret") == 401)
    }

    @Test func emptyControlTokenMeansNoAuthentication() throws {
        let f = try ControlAPIFixture(controlToken: "")
        #expect(f.get("/_emulator/keys").status == 200)
    }

    @Test func constantTimeComparisonComparesWholeValues() {
        #expect(ControlAPI.constantTimeEquals(Array("abc".utf8), Array("abc".utf8)))
        #expect(!ControlAPI.constantTimeEquals(Array("abc".utf8), Array("abcd".utf8)))
        #expect(!ControlAPI.constantTimeEquals(Array("".utf8), Array("a".utf8)))
        #expect(!ControlAPI.constantTimeEquals(Array("abd".utf8), Array("abc".utf8)))
    }
}

/// A state store whose every write fails, for the 500 path.
struct ControlAPIFailingPersistence: StatePersistence {
    struct DiskFull: Error, CustomStringConvertible { var description: String { "disk full" } }
    func load() throws -> EmulatorState { EmulatorState() }
    func upsertKey(_ key: ProviderKeyRecord) throws { throw DiskFull() }
    func deleteKey(keyId: String) throws { throw DiskFull() }
    func upsertToken(_ token: DeviceTokenRecord) throws { throw DiskFull() }
    func deleteToken(_ token: String) throws { throw DiskFull() }
    func upsertFault(_ fault: FaultRule) throws { throw DiskFull() }
    func deleteFault(id: String) throws { throw DiskFull() }
    func replaceAll(with state: EmulatorState) throws { throw DiskFull() }
}
