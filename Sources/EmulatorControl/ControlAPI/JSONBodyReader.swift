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
        let object: [String: Any]
        /// `""` for the body itself, `"action."` for a nested object.
        let prefix: String
        /// Names asked for, in the order asked (the "expected one of" list).
        var known: [String] = []

        init(object: [String: Any], prefix: String) {
            self.object = object
            self.prefix = prefix
        }
    }

    private let scope: Scope
    private let session: Session
    private var object: [String: Any] { scope.object }
    private var prefix: String { scope.prefix }

    private init(object: [String: Any], prefix: String, session: Session) {
        self.scope = Scope(object: object, prefix: prefix)
        self.session = session
        session.scopes.append(scope)
    }

    /// Parses a request body. An empty (or all-whitespace) body reads as `{}`, so endpoints whose fields
    /// are all optional accept a bare `curl -X POST`.
    package static func parse(_ bytes: [UInt8]) throws(ControlAPIError) -> JSONBodyReader {
        let isBlank = bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if isBlank { return JSONBodyReader(object: [:], prefix: "", session: Session()) }
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            throw .malformedJSON("request body is not valid JSON: \(Self.parseProblem(error))")
        }
        guard let object = value as? [String: Any] else {
            throw .malformedJSON("request body must be a JSON object (got \(JSONValueKind.describe(value)))")
        }
        return JSONBodyReader(object: object, prefix: "", session: Session())
    }

    /// Foundation's reason for a parse failure, without the generic "could not be completed" wrapper.
    private static func parseProblem(_ error: Error) -> String {
        let info = (error as NSError).userInfo
        return (info["NSDebugDescription"] as? String) ?? "\(error)"
    }

    // MARK: Accessors

    /// The value for `name`, marking it known; JSON `null` reads as absent.
    private func value(_ name: String) -> Any? {
        if !scope.known.contains(name) { scope.known.append(name) }
        guard let v = object[name], !(v is NSNull) else { return nil }
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

    /// Reads a string. Missing and required, or not a string: recorded; returns nil.
    package func string(_ name: String, required: Bool = false) -> String? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), "a string")) }
            return nil
        }
        guard let s = v as? String else {
            record(.invalid(path(name), mustBe: "a string", got: JSONValueKind.describe(v)))
            return nil
        }
        return s
    }

    /// Reads an integer (a JSON number with no fractional part that fits in 64 bits).
    package func int64(_ name: String, required: Bool = false) -> Int64? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), "an integer")) }
            return nil
        }
        guard let i = JSONValueKind.integer(v) else {
            record(.invalid(path(name), mustBe: "an integer", got: JSONValueKind.describe(v)))
            return nil
        }
        return i
    }

    /// Reads any JSON number as a `Double` (finite by JSON's grammar).
    package func double(_ name: String, required: Bool = false) -> Double? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), "a number")) }
            return nil
        }
        guard let n = v as? NSNumber, !JSONValueKind.isBoolean(n) else {
            record(.invalid(path(name), mustBe: "a number", got: JSONValueKind.describe(v)))
            return nil
        }
        return n.doubleValue
    }

    /// Reads `true` or `false`.
    package func bool(_ name: String, required: Bool = false) -> Bool? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), "true or false")) }
            return nil
        }
        guard let n = v as? NSNumber, JSONValueKind.isBoolean(n) else {
            record(.invalid(path(name), mustBe: "true or false", got: JSONValueKind.describe(v)))
            return nil
        }
        return n.boolValue
    }

    /// Reads an array of strings; a non-string element is reported by index (`topics[2]`).
    package func stringArray(_ name: String, required: Bool = false) -> [String]? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), "an array of strings")) }
            return nil
        }
        guard let array = v as? [Any] else {
            record(.invalid(path(name), mustBe: "an array of strings", got: JSONValueKind.describe(v)))
            return nil
        }
        var strings: [String] = []
        for (i, element) in array.enumerated() {
            guard let s = element as? String else {
                record(.invalid("\(path(name))[\(i)]", mustBe: "a string", got: JSONValueKind.describe(element)))
                return nil
            }
            strings.append(s)
        }
        return strings
    }

    /// Reads a nested object as a child reader, whose fields are checked by the same `finish()`.
    package func object(_ name: String, required: Bool = false) -> JSONBodyReader? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), "an object")) }
            return nil
        }
        guard let o = v as? [String: Any] else {
            record(.invalid(path(name), mustBe: "an object", got: JSONValueKind.describe(v)))
            return nil
        }
        return JSONBodyReader(object: o, prefix: path(name) + ".", session: session)
    }

    /// Reads an array of objects as child readers (`categories[1].actions[0].id` in messages).
    package func objectArray(_ name: String, required: Bool = false) -> [JSONBodyReader]? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), "an array of objects")) }
            return nil
        }
        guard let array = v as? [Any] else {
            record(.invalid(path(name), mustBe: "an array of objects", got: JSONValueKind.describe(v)))
            return nil
        }
        var readers: [JSONBodyReader] = []
        for (i, element) in array.enumerated() {
            guard let o = element as? [String: Any] else {
                record(.invalid("\(path(name))[\(i)]", mustBe: "an object", got: JSONValueKind.describe(element)))
                return nil
            }
            readers.append(JSONBodyReader(object: o, prefix: "\(path(name))[\(i)].", session: session))
        }
        return readers
    }

    /// Reads an array of integers; a non-integer element is reported by index (`options[1]`).
    package func int64Array(_ name: String, required: Bool = false) -> [Int64]? {
        guard let v = value(name) else {
            if required { record(.missing(path(name), "an array of integers")) }
            return nil
        }
        guard let array = v as? [Any] else {
            record(.invalid(path(name), mustBe: "an array of integers", got: JSONValueKind.describe(v)))
            return nil
        }
        var values: [Int64] = []
        for (i, element) in array.enumerated() {
            guard let n = JSONValueKind.integer(element) else {
                record(.invalid("\(path(name))[\(i)]", mustBe: "an integer", got: JSONValueKind.describe(element)))
                return nil
            }
            values.append(n)
        }
        return values
    }

    /// Whether the field is present and a string (for a field that takes one of two types).
    package func isString(_ name: String) -> Bool {
        if !scope.known.contains(name) { scope.known.append(name) }
        return object[name] is String
    }

    /// Whether the field is present with JSON `null` (for calls where null is a programming error the
    /// emulated API reports, as the plugin's argument-null exception, rather than "absent").
    package func isNull(_ name: String) -> Bool {
        if !scope.known.contains(name) { scope.known.append(name) }
        return object[name] is NSNull
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

/// Helpers for what `JSONSerialization` hands back: booleans and numbers share `NSNumber` on Linux.
package enum JSONValueKind {
    /// Whether an `NSNumber` came from JSON `true`/`false` (its Objective-C type code is `c`, char).
    package static func isBoolean(_ n: NSNumber) -> Bool {
        String(cString: n.objCType) == "c"
    }

    /// The value as a 64-bit integer if it is a JSON number without a fractional part (`1e3` counts).
    package static func integer(_ v: Any) -> Int64? {
        guard let n = v as? NSNumber, !isBoolean(n) else { return nil }
        switch String(cString: n.objCType) {
        case "d", "f":
            let d = n.doubleValue
            // 2^63 is exactly representable; anything at or past it does not fit.
            guard d.rounded() == d, d > -9.223372036854775808e18, d < 9.223372036854775808e18 else { return nil }
            return Int64(d)
        case "Q":
            return n.uint64Value <= UInt64(Int64.max) ? n.int64Value : nil
        default:
            return n.int64Value
        }
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
