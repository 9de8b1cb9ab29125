import Foundation
import H2Transport
import Testing

@testable import EmulatorControl

@testable import APNsEmulator

/// Holds the OpenAPI document to the router and to the real responses.
@Suite("ControlAPI: OpenAPI document")
struct ControlAPIOpenAPITests {
    typealias JSON = [String: Any]
    static let methods = ["get", "put", "post", "delete", "patch", "head", "options"]

    static func document() throws -> JSON {
        try #require(try JSONSerialization.jsonObject(with: Data(ControlAPIDocument.json)) as? JSON)
    }

    /// (METHOD, path) → operationId, from the document.
    static func documentedOperations() throws -> [String: String] {
        let paths = try #require(try document()["paths"] as? JSON)
        var result: [String: String] = [:]
        for (path, item) in paths {
            for (method, operation) in try #require(item as? JSON) where methods.contains(method) {
                result["\(method.uppercased()) \(path)"] = (operation as? JSON)?["operationId"] as? String
            }
        }
        return result
    }

    @Test func documentIsServedAsOpenAPI30() throws {
        let f = try ControlAPIFixture()
        let reply = f.get("/_emulator/openapi.json")
        #expect(reply.status == 200)
        #expect(reply.response.body == ControlAPIDocument.json)
        let doc = try Self.document()
        #expect((doc["openapi"] as? String)?.hasPrefix("3.0.") == true)
        #expect((doc["info"] as? JSON)?["version"] as? String == EmulatorVersion.current)
    }

    @Test func everyRouteIsDocumentedAndEveryDocumentedOperationIsRouted() throws {
        let documented = try Self.documentedOperations()
        let routed = Dictionary(uniqueKeysWithValues: ControlAPI.router.routes.map {
            ("\($0.method) \($0.pattern)", $0.operation.rawValue)
        })
        for (route, operation) in routed {
            #expect(documented[route] == operation, "route \(route) (\(operation)) is not documented as such")
        }
        for (route, operation) in documented {
            #expect(routed[route] == operation, "documented \(route) (\(operation)) is not routed")
        }
        #expect(Set(routed.values) == Set(ControlOperation.allCases.map(\.rawValue)), "every operation has a route")
    }

    @Test func everyReferenceResolves() throws {
        let doc = try Self.document()
        let text = String(decoding: ControlAPIDocument.json, as: UTF8.self)
        let refs = Set(text.matches(of: /"\$ref" : "([^"]+)"/).map { String($0.1) })
        #expect(!refs.isEmpty)
        for ref in refs {
            let parts = ref.split(separator: "/").dropFirst().map(String.init)
            var node: Any? = doc
            for part in parts { node = (node as? JSON)?[part] }
            #expect(node is JSON, "unresolved \(ref)")
        }
    }

    @Test func everyOperationButHealthDocuments401AndHealthIsOpen() throws {
        let paths = try #require(try Self.document()["paths"] as? JSON)
        for (path, item) in paths {
            for (method, value) in try #require(item as? JSON) {
                let operation = try #require(value as? JSON)
                let responses = try #require(operation["responses"] as? JSON)
                if path == "/_emulator/health" {
                    #expect((operation["security"] as? [Any])?.isEmpty == true)
                    #expect(responses["401"] == nil)
                } else {
                    #expect(responses["401"] != nil, "\(method) \(path)")
                }
                if operation["requestBody"] != nil { #expect(responses["400"] != nil, "\(method) \(path)") }
            }
        }
        let info = try #require(try Self.document()["info"] as? JSON)
        #expect((info["description"] as? String)?.contains("HEALTHCHECK") == true)
    }

    // MARK: Real responses against their documented schemas

    /// Calls each operation on a populated emulator and checks the answer against the documented
    /// response schema, strictly: a field the code sends but the document does not list fails.
    @Test func responsesMatchTheirDocumentedSchemas() throws {
        let f = try ControlAPIFixture()
        let token = ControlAPIFixture.token
        f.services.journal.append(JournalEntry(
            id: 0, receivedAt: 1, connectionId: 1, environment: .sandbox, method: "POST", path: "/3/device/\(token)",
            token: token, topic: "com.example.app", pushType: "alert", priority: 10, expiration: 0, collapseId: "c",
            headers: [["apns-topic", "com.example.app"]], payload: "{}", authMode: "token", authOutcome: "accepted",
            teamId: "TEAM000001", keyId: "KEY0000001", status: 410, reason: "Unregistered", timestamp: 5,
            apnsId: "x", apnsUniqueId: "y", durationMicros: 3, faultId: "f", warnings: ["w"]))
        let calls: [(String, String, String?, String)] = [
            ("GET", "/_emulator/health", nil, "getHealth"),
            ("POST", "/_emulator/keys", #"{"teamId":"TEAM000001","keyId":"KEY0000001"}"#, ""),
            ("POST", "/_emulator/keys", #"{"teamId":"TEAM000001","keyId":"KEY0000002","kind":"topic","environment":"sandbox","topics":["a.b"],"relatedKeyId":"KEY0000001"}"#, ""),
            ("GET", "/_emulator/keys", nil, ""),
            ("GET", "/_emulator/keys/KEY0000002", nil, ""),
            ("POST", "/_emulator/tokens", #"{"bundleId":"com.example.app","environment":"sandbox","token":"\#(token)"}"#, ""),
            ("POST", "/_emulator/tokens/\(token)/unregister", nil, ""),
            ("POST", "/_emulator/tokens/\(token)/expire", nil, ""),
            ("GET", "/_emulator/tokens", nil, ""),
            ("GET", "/_emulator/tokens/\(token)", nil, ""),
            ("GET", "/_emulator/journal", nil, ""),
            ("GET", "/_emulator/journal/count", nil, ""),
            ("GET", "/_emulator/journal/settings", nil, ""),
            ("PUT", "/_emulator/journal/settings", #"{"capacity":10}"#, ""),
            ("POST", "/_emulator/faults", #"{"id":"a","token":"\#(token)","topic":"a.b","action":{"type":"reason","reason":"BadDeviceToken"},"count":1,"durationMs":5}"#, ""),
            ("POST", "/_emulator/faults", #"{"id":"b","action":{"type":"delay","delayMs":5}}"#, ""),
            ("POST", "/_emulator/faults", #"{"id":"c","action":{"type":"goaway"}}"#, ""),
            ("POST", "/_emulator/faults", #"{"id":"d","action":{"type":"reset-stream"}}"#, ""),
            ("POST", "/_emulator/faults", #"{"id":"e","action":{"type":"shutdown"}}"#, ""),
            ("GET", "/_emulator/faults", nil, ""),
            ("GET", "/_emulator/faults/a", nil, ""),
            ("GET", "/_emulator/state", nil, ""),
            ("GET", "/_emulator/clock", nil, ""),
            ("POST", "/_emulator/clock/advance", #"{"ms":1}"#, ""),
            ("POST", "/_emulator/clock/resume", nil, ""),
            ("POST", "/_emulator/clock/freeze", nil, ""),
            ("GET", "/_emulator/nope", nil, ""),
            ("POST", "/_emulator/keys", #"{"x":1}"#, ""),
        ]
        let doc = try Self.document()
        let checker = ControlAPISchemaChecker(document: doc)
        let paths = try #require(doc["paths"] as? JSON)
        for (method, path, body, _) in calls {
            let reply = f.call(method, path, body: body)
            let pattern = Self.pattern(for: method, path)
            guard let pattern, let operation = (paths[pattern] as? JSON)?[method.lowercased()] as? JSON else {
                #expect(reply.status == 404, "\(method) \(path) is not documented")
                continue
            }
            let responses = try #require(operation["responses"] as? JSON)
            let response = try #require(responses["\(reply.status)"] as? JSON,
                                        "\(method) \(path): \(reply.status) undocumented")
            guard let schema = ((response["content"] as? JSON)?["application/json"] as? JSON)?["schema"] as? JSON else {
                #expect(reply.response.body.isEmpty, "\(method) \(path)")
                continue
            }
            let value = try JSONSerialization.jsonObject(with: Data(reply.response.body))
            let problems = checker.check(value, against: schema, at: "\(method) \(path)")
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    static func pattern(for method: String, _ path: String) -> String? {
        guard case .found = ControlAPI.router.match(method: method, path: path) else { return nil }
        return ControlAPI.router.routes.first { route in
            guard route.method == method else { return false }
            let parts = path.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == route.segments.count + 1 else { return false }
            return zip(route.segments, parts.dropFirst()).allSatisfy { segment, part in
                if case .literal(let text) = segment { return text == part }
                return true
            }
        }?.pattern
    }
}

/// A small checker for the JSON Schema subset the document uses (type, properties, required, items,
/// enum, nullable, $ref, allOf, oneOf with a discriminator). Strict: properties not declared anywhere in
/// the schema are reported, so the document must list every field the code sends.
struct ControlAPISchemaChecker {
    typealias JSON = [String: Any]
    let document: JSON

    func resolve(_ schema: JSON) -> JSON {
        guard let ref = schema["$ref"] as? String else { return schema }
        var node: Any? = document
        for part in ref.split(separator: "/").dropFirst() { node = (node as? JSON)?[String(part)] }
        return resolve(node as? JSON ?? [:])
    }

    func check(_ value: Any, against schema: JSON, at path: String) -> [String] {
        let schema = resolve(schema)
        if value is NSNull { return schema["nullable"] as? Bool == true ? [] : ["\(path): null not allowed"] }
        if let discriminator = schema["discriminator"] as? JSON, let object = value as? JSON,
           let property = discriminator["propertyName"] as? String, let tag = object[property] as? String {
            guard let target = (discriminator["mapping"] as? JSON)?[tag] as? String else {
                return ["\(path): no variant for \(tag)"]
            }
            return check(value, against: ["$ref": target], at: path)
        }
        if let parts = schema["allOf"] as? [JSON] {
            // Merge the parts' properties so strictness applies to the union.
            var merged: JSON = ["type": "object", "properties": JSON(), "required": [String]()]
            for part in parts.map(resolve) {
                let properties = part["properties"] as? JSON ?? [:]
                merged["properties"] = (merged["properties"] as! JSON).merging(properties) { a, _ in a }
                merged["required"] = (merged["required"] as! [String]) + (part["required"] as? [String] ?? [])
            }
            return check(value, against: merged, at: path)
        }
        var problems: [String] = []
        if let choices = schema["enum"] as? [String], let s = value as? String, !choices.contains(s) {
            problems.append("\(path): \(s) not in enum")
        }
        switch schema["type"] as? String {
        case "object":
            guard let object = value as? JSON else { return ["\(path): not an object"] }
            let properties = schema["properties"] as? JSON ?? [:]
            if properties.isEmpty { return problems }   // a free-form object (the OpenAPI document itself)
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(path): missing \(name)")
            }
            for (name, v) in object {
                guard let p = properties[name] as? JSON else {
                    problems.append("\(path): undocumented field \(name)")
                    continue
                }
                problems += check(v, against: p, at: "\(path).\(name)")
            }
        case "array":
            guard let array = value as? [Any] else { return ["\(path): not an array"] }
            let items = schema["items"] as? JSON ?? [:]
            for (i, v) in array.enumerated() { problems += check(v, against: items, at: "\(path)[\(i)]") }
        case "string":
            if !(value is String) { problems.append("\(path): not a string") }
        case "integer":
            if !(value is NSNumber) || value is String { problems.append("\(path): not an integer") }
        case "number":
            if !(value is NSNumber) { problems.append("\(path): not a number") }
        case "boolean":
            if !(value is NSNumber) { problems.append("\(path): not a boolean") }
        default:
            break
        }
        return problems
    }
}
