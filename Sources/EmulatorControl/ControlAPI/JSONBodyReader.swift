import APNsEmulator
import Foundation

/// A strict reader over one JSON object of a control request body.
///
/// ### Overview
/// Handlers ask for each field by name and type (`string("teamId", required: true)`). The reader notes
/// every name asked for; `finish()` then refuses any field nobody asked for, so a typo such as
/// `teamid` is reported as an unknown field instead of being ignored. Nested objects (`action`) get a
/// child reader whose names are reported with a dotted prefix.
///
/// ### Implementation
/// Accessors do not throw. A wrong type or a missing required field is recorded (the first one wins)
/// and the accessor returns a placeholder, because the unknown-field check must come first: a body
/// with `teamid` also lacks `teamId`, and "unknown field 'teamid'" is the message that helps. So the
/// rule for handlers is: read every field, call `finish()`, and only then use the values. Checks of
/// meaning (formats, cross-field rules) come after `finish()` and throw directly; mutations come last.
package final class JSONBodyReader {
    /// Shared by a reader and its children: the first recorded error and every reader's scope, in creation order.
    /// It holds scopes, not readers: a reader holds its session, so holding readers here would be a cycle.
    private final class Session {
        var firstError: ControlAPIError?
        var scopes: [Scope] = []
    }

    /// One object's fields and the names asked of it.
    private final class Scope {
        let object: JSONNode
        /// `""` for the body itself, `"action."` for a nested object.
        let prefix: String
        /// Names asked for, in the order asked (the "expected one of" list).
        var known: [String] = []

        init(object: JSONNode, prefix: String) {
            self.object = object
            self.prefix = prefix
        }
    }

    private let scope: Scope
    private let session: Session
    private var object: JSONNode { scope.object }
    private var prefix: String { scope.prefix }

    private init(object: JSONNode, prefix: String, session: Session) {
        self.scope = Scope(object: object, prefix: prefix)
        self.session = session
        session.scopes.append(scope)
    }

    /// Parses a request body. An empty (or all-whitespace) body reads as `{}`, so endpoints whose fields
    /// are all optional accept a bare `curl -X POST`.
    package static func parse(_ bytes: [UInt8]) throws(ControlAPIError) -> JSONBodyReader {
        let isBlank = bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let document: JSONDocument
        switch JSONDocument.parse(isBlank ? Array("{}".utf8) : bytes) {
        case .success(let d): document = d
        case .failure(.invalid(let why)): throw .malformedJSON("request body is not valid JSON: \(why)")
        case .failure(.overBudget(let budget)): throw .bodyTooComplex(budgetBytes: budget)
        }
        guard document.value.kind == .object else {
            throw .malformedJSON("request body must be a JSON object (got \(document.value.description))")
        }
        return JSONBodyReader(object: document.value, prefix: "", session: Session())
    }

    // MARK: Accessors

    /// The value for `name`, marking it known; JSON `null` reads as absent.
    private func value(_ name: String) -> JSONNode? {
        if !scope.known.contains(name) { scope.known.append(name) }
        guard let v = object[name], !v.isNull else { return nil }
        return v
    }

    /// Whether the field is present and not null.
    package func has(_ name: String) -> Bool {
        value(name) != nil
    }

    package func path(_ name: String) -> String { prefix + name }

    private func record(_ error: ControlAPIError) {
        if session.firstError == nil { session.firstError = error }
    }

    /// Reads field `name` with `read` (nil: the wrong type, recorded as not `expected`). Missing and required:
    /// recorded too; either way the result is nil.
    private func typed<T>(_ name: String, _ expected: String, required: Bool, _ read: (JSONNode) -> T?) -> T? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), expected)) }
            return nil
        }
        guard let typed = read(v) else {
            record(.invalid(path(name), mustBe: expected, got: v.description))
            return nil
        }
        return typed
    }

    /// Reads a string. Missing and required, or not a string: recorded; returns nil.
    package func string(_ name: String, required: Bool = false) -> String? {
        typed(name, "a string", required: required) { $0.string }
    }

    /// Reads an integer (a JSON number with no fractional part that fits in 64 bits).
    package func int64(_ name: String, required: Bool = false) -> Int64? {
        typed(name, "an integer", required: required) { $0.integer }
    }

    /// Reads any JSON number as a `Double` (finite by JSON's grammar).
    package func double(_ name: String, required: Bool = false) -> Double? {
        typed(name, "a number", required: required) { $0.double }
    }

    /// Reads `true` or `false`.
    package func bool(_ name: String, required: Bool = false) -> Bool? {
        typed(name, "true or false", required: required) { $0.bool }
    }

    /// Reads an array whose elements `read` accepts; the first it refuses is reported by index (`topics[2]`).
    private func array<T>(_ name: String, of elements: String, each element: String, required: Bool,
                          _ read: (JSONNode, Int) -> T?) -> [T]? {
        guard let items = typed(name, "an array of \(elements)", required: required, { $0.kind == .array ? $0.elements : nil })
        else { return nil }
        var values: [T] = []
        values.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
            guard let v = read(item, i) else {
                record(.invalid("\(path(name))[\(i)]", mustBe: element, got: item.description))
                return nil
            }
            values.append(v)
        }
        return values
    }

    /// Reads an array of strings; a non-string element is reported by index (`topics[2]`).
    package func stringArray(_ name: String, required: Bool = false) -> [String]? {
        array(name, of: "strings", each: "a string", required: required) { item, _ in item.string }
    }

    /// Reads a nested object as a child reader, whose fields are checked by the same `finish()`.
    package func object(_ name: String, required: Bool = false) -> JSONBodyReader? {
        typed(name, "an object", required: required) { v in
            v.kind == .object ? JSONBodyReader(object: v, prefix: path(name) + ".", session: session) : nil
        }
    }

    /// Reads an array of objects as child readers (`categories[1].actions[0].id` in messages).
    package func objectArray(_ name: String, required: Bool = false) -> [JSONBodyReader]? {
        array(name, of: "objects", each: "an object", required: required) { item, i in
            item.kind == .object ? JSONBodyReader(object: item, prefix: "\(path(name))[\(i)].", session: session) : nil
        }
    }

    /// Reads an array of integers; a non-integer element is reported by index (`options[1]`).
    package func int64Array(_ name: String, required: Bool = false) -> [Int64]? {
        array(name, of: "integers", each: "an integer", required: required) { item, _ in item.integer }
    }

    /// Whether the field is present and a string (for a field that takes one of two types).
    package func isString(_ name: String) -> Bool {
        if !scope.known.contains(name) { scope.known.append(name) }
        return object[name]?.kind == .string
    }

    /// Whether the field is present with JSON `null` (for calls where null is a programming error the
    /// emulated API reports, as the plugin's argument-null exception, rather than "absent").
    package func isNull(_ name: String) -> Bool {
        if !scope.known.contains(name) { scope.known.append(name) }
        return object[name]?.isNull == true
    }

    // MARK: Finishing

    /// Throws for the first field no accessor asked for (in this reader or a nested one), else for the
    /// first recorded type or missing-field problem. Call once, on the top-level reader, before using
    /// any value read.
    package func finish() throws(ControlAPIError) {
        for scope in session.scopes {
            let unknown = scope.object.keys.filter { !scope.known.contains($0) }.sorted()
            if let name = unknown.first {
                throw .unknownField(scope.prefix + name, expected: scope.known, location: .body)
            }
        }
        if let error = session.firstError { throw error }
    }
}

/// Helpers for what `JSONSerialization` hands back (payload paths, the devices' API): booleans and numbers share
/// `NSNumber` on Linux.
package enum JSONValueKind {
    /// Whether an `NSNumber` came from JSON `true`/`false` (its Objective-C type code is `c`, char).
    package static func isBoolean(_ n: NSNumber) -> Bool {
        String(cString: n.objCType) == "c"
    }

    /// A short description of a JSON value for error messages: `"abc"`, `12`, `true`, `an object`.
    package static func describe(_ v: Any) -> String {
        switch v {
        case is NSNull: return "null"
        case let s as String:
            let shown = s.count > 40 ? String(s.prefix(40)) + "…" : s
            return "\"\(shown)\""
        case let n as NSNumber: return isBoolean(n) ? (n.boolValue ? "true" : "false") : "\(n)"
        case is [Any]: return "an array"
        case is [String: Any]: return "an object"
        default: return "\(type(of: v))"
        }
    }
}
