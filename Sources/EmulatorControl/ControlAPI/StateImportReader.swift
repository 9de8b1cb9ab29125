import APNsEmulator
import Foundation
import StateStore

/// Reads a `PUT /_emulator/state` body into an `EmulatorState`, refusing anything `POST` would refuse.
///
/// ### Overview
/// The snapshot is decoded whole with `JSONDecoder` (the models are `Codable`), then every record is
/// checked with the same `ControlAPIValidation` rules the create endpoints use, and duplicates are
/// refused. Only a snapshot that passes all of it reaches `EmulatorServices.importState`.
///
/// ### Unknown fields
/// `JSONDecoder` ignores fields it does not know, which would turn a typo into silently lost data. A
/// field is unknown when the decoded snapshot, encoded again, does not have it (and it was not `null`)
/// and the OpenAPI schema does not list it either. The round trip keeps every field the models know, so
/// a model field missing from the document never makes an exported snapshot unimportable; the schema
/// supplies the "expected one of" list and covers snapshots too broken to decode.
enum StateImportReader {
    static func read(_ bytes: [UInt8]) throws(ControlAPIError) -> EmulatorState {
        let document: JSONDocument
        switch JSONDocument.parse(bytes) {
        case .success(let d): document = d
        case .failure(.invalid(let why)): throw .malformedJSON("request body is not valid JSON: \(why)")
        case .failure(.overBudget(let budget)): throw .bodyTooComplex(budgetBytes: budget)
        }
        guard document.value.kind == .object else {
            throw .malformedJSON("request body must be a JSON object (an exported state snapshot)")
        }
        let schema = ControlAPIDocument.schema(named: "EmulatorState")
        let state: EmulatorState
        do {
            state = try JSONDecoder().decode(EmulatorState.self, from: Data(bytes))
        } catch {
            if let unknown = unknownField(in: document.value, reference: nil, schema: schema, path: "") { throw unknown }
            throw describe(error)
        }
        let reencoded = (try? JSONEncoder().encode(state)).flatMap { try? JSONDocument.parse(Array($0)).get() }
        if let unknown = unknownField(in: document.value, reference: reencoded?.value, schema: schema, path: "") {
            throw unknown
        }
        try validate(state)
        return state
    }

    /// Checks every record and refuses duplicate ids, naming the offending element (`tokens[3].token`).
    static func validate(_ state: EmulatorState) throws(ControlAPIError) {
        guard (1...EmulatorState.currentVersion).contains(state.version) else {
            throw .invalid("version", mustBe: "from 1 to \(EmulatorState.currentVersion) (this emulator's snapshot"
                           + " format)", got: "\(state.version)")
        }
        var keyIds: Set<String> = []
        for (i, key) in state.keys.enumerated() {
            try ControlAPIValidation.key(key, prefix: "keys[\(i)].")
            guard keyIds.insert(key.keyId).inserted else {
                throw .invalidField("keys[\(i)].keyId", message: "key id '\(key.keyId)' appears twice in the snapshot")
            }
        }
        var tokens: Set<String> = []
        for (i, token) in state.tokens.enumerated() {
            try ControlAPIValidation.token(token, prefix: "tokens[\(i)].")
            guard tokens.insert(token.token).inserted else {
                throw .invalidField("tokens[\(i)].token",
                                    message: "token '\(token.token)' appears twice in the snapshot")
            }
        }
        var faultIds: Set<String> = []
        for (i, fault) in state.faults.enumerated() {
            try ControlAPIValidation.fault(fault, prefix: "faults[\(i)].")
            guard faultIds.insert(fault.id).inserted else {
                throw .invalidField("faults[\(i)].id", message: "fault id '\(fault.id)' appears twice in the snapshot")
            }
        }
    }

    // MARK: Unknown fields

    /// The first field of `input` that neither `reference` (the re-encoded snapshot) nor `schema` has.
    private static func unknownField(in input: JSONNode, reference: JSONNode?, schema: ControlAPIDocument.Schema?,
                                     path: String) -> ControlAPIError? {
        if input.kind == .array {
            let references = reference?.kind == .array ? reference?.elements : nil
            for (i, element) in input.elements.enumerated() {
                let r = references.flatMap { i < $0.count ? $0[i] : nil }
                if let e = unknownField(in: element, reference: r, schema: schema?.items, path: "\(path)[\(i)]") {
                    return e
                }
            }
            return nil
        }
        guard input.kind == .object else { return nil }
        let references = reference?.kind == .object ? reference : nil
        let schema = schema?.variant { input[$0]?.string }
        let declared = schema?.propertyNames ?? []
        for name in input.keys.sorted() {
            guard let value = input[name], !value.isNull else { continue }
            let field = path.isEmpty ? name : "\(path).\(name)"
            let known = references?[name] != nil || declared.contains(name)
            guard known else {
                let expected = declared.isEmpty ? (references?.keys.sorted() ?? []) : declared
                return .unknownField(field, expected: expected, location: .body)
            }
            let nested = unknownField(in: value, reference: references?[name], schema: schema?.property(name),
                                      path: field)
            if let nested { return nested }
        }
        return nil
    }

    // MARK: Decoding errors

    /// A `DecodingError` as a 400 naming the field by its path in the snapshot.
    private static func describe(_ error: Error) -> ControlAPIError {
        guard let error = error as? DecodingError else {
            return .malformedJSON("could not read the snapshot: \(error)")
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return .missing(field, "required in a state snapshot")
        case .typeMismatch(let type, let context):
            return .invalid(path(context.codingPath), mustBe: typeName(type))
        case .valueNotFound(let type, let context):
            return .invalid(path(context.codingPath), mustBe: typeName(type) + ", not null")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            return .invalidField(field, message: "field '\(field)' has an invalid value: \(context.debugDescription)")
        @unknown default:
            return .malformedJSON("could not read the snapshot: \(error)")
        }
    }

    /// `keys[2].kind` from a coding path.
    private static func path(_ codingPath: [CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let i = key.intValue {
                text += "[\(i)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type, is Int32.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        case is [Any].Type: return "an array"
        default: return type is Decodable.Type ? "an object" : "\(type)"
        }
    }
}
