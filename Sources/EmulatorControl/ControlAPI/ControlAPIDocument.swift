import APNsEmulator
import Foundation

/// The OpenAPI 3.0 description of the control API, served at `GET /_emulator/openapi.json`.
///
/// ### Why it is built in Swift
/// The release binary is linked statically and the Docker image copies only the binary, so a SwiftPM
/// resource bundle (`Bundle.module`) would be missing at run time. The document is therefore assembled
/// here from small helpers (one place states the shared error responses and the version header) and
/// serialised once. A test holds it to `ControlAPI.router` both ways (every route documented, every
/// documented operation routed) and checks that the documented schemas cover every field the models
/// encode, so the document cannot drift from the code silently.
///
/// Files: this one (top level, helpers, the `Schema` walker), `+Schemas` (components), `+Paths` (operations).
package enum ControlAPIDocument {
    package typealias JSON = [String: Any]

    /// The built-in document (no extensions), pretty-printed with sorted keys (stable diffs).
    static let json: [UInt8] = serialize(document())

    /// The document with the extensions' operations, tags and schemas, as a running emulator serves it.
    package static func json(extensions: [any ControlAPIExtension]) -> [UInt8] {
        if extensions.isEmpty { return json }
        return serialize(document(extensions: extensions.map(\.document)))
    }

    private static func serialize(_ document: JSON) -> [UInt8] {
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Serialising dictionaries of strings, numbers, booleans and arrays cannot fail.
        return Array(try! JSONSerialization.data(withJSONObject: document, options: options))
    }

    /// The whole document as a JSON object.
    static func document(extensions: [Fragment] = []) -> JSON {
        var schemas = schemas()
        for fragment in extensions { schemas.merge(fragment.schemas) { core, _ in core } }
        return [
            "openapi": "3.0.3",
            "info": [
                "title": "APNs emulator control API",
                "version": EmulatorVersion.current,
                "description": overview,
            ] as JSON,
            "servers": [["url": "http://127.0.0.1:8765", "description": "`apns-emulator serve` default control port"]],
            "tags": tags + extensions.flatMap(\.tags),
            "security": [["controlToken": [String]()], JSON()],
            "paths": paths(extra: extensions.flatMap(\.operations)),
            "components": [
                "schemas": schemas,
                "securitySchemes": [
                    "controlToken": [
                        "type": "http", "scheme": "bearer",
                        "description": "The token given to `apns-emulator serve --control-token`. Required on every"
                            + " endpoint except `GET /_emulator/health` when the emulator was started with one;"
                            + " unused otherwise.",
                    ] as JSON,
                ] as JSON,
                "headers": [
                    "Version": [
                        "description": "The emulator's version; every control and APNs response carries it.",
                        "schema": ["type": "string", "example": EmulatorVersion.current] as JSON,
                    ] as JSON,
                    "Location": [
                        "description": "Path of the created resource.",
                        "schema": ["type": "string"] as JSON,
                    ] as JSON,
                ] as JSON,
            ] as JSON,
        ]
    }

    static let overview = """
        Control plane of the APNs emulator: register provider keys and device tokens, read the journal of \
        APNs requests, inject faults, move a manual clock, reset, export and import state.

        * Every path is under `/_emulator/`; requests and responses are JSON (no request `content-type` is \
        required, so `curl -d` works as is).
        * Every response carries `x-apns-emulator: <version>` and `content-type: application/json`.
        * Input is strict: unknown fields and query parameters are refused with 400 naming them, as are \
        wrong types and values. A refused request changes nothing.
        * Errors are `{"error": "..."}`; 400s add `"field"`, the path of the offending field \
        (`action.reason`, `topics[2]`) or `null` when the body as a whole is wrong.
        * Authentication: when the emulator runs with `--control-token`, every request must carry \
        `Authorization: Bearer <token>` (else 401), except `GET /_emulator/health`, which stays open so \
        Docker's `HEALTHCHECK` works without the secret.
        * Times are milliseconds since the UNIX epoch, read from the emulator's clock.
        """

    static var tags: [JSON] { [
        ["name": "meta", "description": "Health and this document."],
        ["name": "keys", "description": "Provider-token signing keys the emulator trusts."],
        ["name": "tokens", "description": "Device tokens and their end of life (410 Unregistered / ExpiredToken)."],
        ["name": "journal", "description": "Every APNs request the emulator answered."],
        ["name": "faults", "description": "Injected misbehaviour for matching APNs requests."],
        ["name": "state", "description": "Reset, export and import."],
        ["name": "clock", "description": "The emulator's time, movable when it runs on a manual clock."],
        ["name": "metrics", "description": "Live metrics, per-connection statistics and Apple-like load shaping."],
        ["name": "cluster", "description": "Replicas sharing one state store (`--state-store redis://…`) and the"
            + " cluster journal."],
    ] }
}

// MARK: Building blocks

extension ControlAPIDocument {
    package static func ref(_ name: String) -> JSON { ["$ref": "#/components/schemas/\(name)"] }

    package static func string(_ description: String, example: String? = nil, pattern: String? = nil,
                       choices: [String]? = nil, nullable: Bool = false) -> JSON {
        var s: JSON = ["type": "string", "description": description]
        if let example { s["example"] = example }
        if let pattern { s["pattern"] = pattern }
        if let choices { s["enum"] = choices }
        if nullable { s["nullable"] = true }
        return s
    }

    package static func integer(_ description: String, minimum: Int64? = nil, maximum: Int64? = nil,
                        example: Int64? = nil) -> JSON {
        var s: JSON = ["type": "integer", "format": "int64", "description": description]
        if let minimum { s["minimum"] = minimum }
        if let maximum { s["maximum"] = maximum }
        if let example { s["example"] = example }
        return s
    }

    package static func boolean(_ description: String) -> JSON {
        ["type": "boolean", "description": description]
    }

    package static func array(_ items: JSON, _ description: String, minItems: Int? = nil, maxItems: Int? = nil) -> JSON {
        var s: JSON = ["type": "array", "items": items, "description": description]
        if let minItems { s["minItems"] = minItems }
        if let maxItems { s["maxItems"] = maxItems }
        return s
    }

    /// An object schema; `closed` (request bodies) documents that unknown fields are refused.
    package static func object(_ description: String, _ properties: [(String, JSON)], required: [String] = [],
                       closed: Bool = false) -> JSON {
        var s: JSON = [
            "type": "object", "description": description,
            "properties": Dictionary(properties, uniquingKeysWith: { a, _ in a }),
        ]
        if !required.isEmpty { s["required"] = required }
        if closed { s["additionalProperties"] = false }
        return s
    }

    /// Milliseconds since the epoch.
    package static func millis(_ description: String) -> JSON {
        integer(description + " (ms since the UNIX epoch)", minimum: 0, example: 1_767_225_600_000)
    }
}

// MARK: Walking schemas (for state import's unknown-field check)

extension ControlAPIDocument {
    /// A component schema with `$ref`, `allOf` and `oneOf` resolved far enough to list property names.
    struct Schema {
        let node: JSON
        let components: JSON

        /// Properties of this object schema (the union over `allOf`/`oneOf` parts), sorted.
        var propertyNames: [String] {
            Set(parts.flatMap { ($0["properties"] as? JSON)?.keys.map { $0 } ?? [] }).sorted()
        }

        /// The schema of property `name`, if documented.
        func property(_ name: String) -> Schema? {
            for part in parts {
                if let p = (part["properties"] as? JSON)?[name] as? JSON { return Schema(resolving: p, components) }
            }
            return nil
        }

        /// The schema of an array's elements.
        var items: Schema? {
            (node["items"] as? JSON).map { Schema(resolving: $0, components) }
        }

        /// For a `oneOf` with a discriminator, the variant an object selects (`{"type": "delay"}` →
        /// `FaultActionDelay`), so fields of other variants count as unknown; otherwise this schema. `field`
        /// gives the object's string value of a field by name.
        func variant(_ field: (String) -> String?) -> Schema {
            guard let discriminator = node["discriminator"] as? JSON,
                  let property = discriminator["propertyName"] as? String,
                  let value = field(property),
                  let target = (discriminator["mapping"] as? JSON)?[value] as? String else { return self }
            return Schema(resolving: ["$ref": target], components)
        }

        /// This schema and the schemas it is composed of.
        private var parts: [JSON] {
            let composed = ((node["allOf"] as? [JSON]) ?? []) + ((node["oneOf"] as? [JSON]) ?? [])
            return [node] + composed.map { Schema(resolving: $0, components).node }
        }

        init(resolving node: JSON, _ components: JSON) {
            var node = node
            // Components refer to each other only a few levels deep; the bound guards a cyclic typo.
            for _ in 0..<8 {
                guard let ref = node["$ref"] as? String,
                      let target = components[String(ref.split(separator: "/").last ?? "")] as? JSON else { break }
                node = target
            }
            self.node = node
            self.components = components
        }
    }

    /// The component schema `name` from the served document.
    static func schema(named name: String) -> Schema? {
        guard let doc = try? JSONSerialization.jsonObject(with: Data(json)) as? JSON,
              let schemas = (doc["components"] as? JSON)?["schemas"] as? JSON,
              let node = schemas[name] as? JSON else { return nil }
        return Schema(resolving: node, schemas)
    }
}
