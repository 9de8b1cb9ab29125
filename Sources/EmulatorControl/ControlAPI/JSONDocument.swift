import CJansson
import CShims

/// A parsed JSON text: jansson's tree, read through `JSONNode`s, freed with the last reference to the document.
///
/// jansson rather than Foundation's `JSONSerialization`, whose boxed values take ~145 times a body of small
/// objects in memory; and the parse has a memory budget, so a body's shape cannot make it cost more than
/// `budgetBytes` however small its values are.
package final class JSONDocument {
    /// What one parse may allocate for its tree.
    package static let budgetBytes = 128 * 1024 * 1024

    private let root: UnsafeMutablePointer<json_t>

    /// Why a text did not parse.
    package enum ParseError: Error, Equatable {
        /// Not JSON: jansson's message with the line and column.
        case invalid(String)
        /// Its tree would need more than `budget` bytes.
        case overBudget(Int)
    }

    private init(root: UnsafeMutablePointer<json_t>) { self.root = root }

    deinit { json_delete(root) }

    /// Parses any JSON value (top-level scalars included). Duplicate object keys are refused: which one would win
    /// is a guess a strict API should not make.
    package static func parse(_ bytes: [UInt8], budget: Int = budgetBytes) -> Result<JSONDocument, ParseError> {
        guard !bytes.isEmpty else { return .failure(.invalid("the body is empty")) }
        var error = json_error_t()
        var exhausted: Int32 = 0
        let flags = Int(JSON_DECODE_ANY | JSON_REJECT_DUPLICATES)
        let root = bytes.withUnsafeBufferPointer {
            CShims_json_loadb_bounded($0.baseAddress, $0.count, flags, &error, budget, &exhausted)
        }
        if let root { return .success(JSONDocument(root: root)) }
        if exhausted != 0 { return .failure(.overBudget(budget)) }
        var text = String(cString: CShims_json_error_text(&error))
        // jansson names its own flag; say what is wrong instead.
        if text.contains("JSON_ALLOW_NUL") { text = "\\u0000 is not allowed in a string" }
        return .failure(.invalid("\(text) (line \(error.line), column \(error.column))"))
    }

    /// The top-level value.
    package var value: JSONNode { JSONNode(root, in: self) }
}

/// One value of a `JSONDocument` (which it keeps alive).
package struct JSONNode {
    private let pointer: UnsafeMutablePointer<json_t>
    private let document: JSONDocument

    package enum Kind: Equatable { case object, array, string, integer, real, bool, null }

    fileprivate init(_ pointer: UnsafeMutablePointer<json_t>, in document: JSONDocument) {
        self.pointer = pointer
        self.document = document
    }

    package var kind: Kind {
        switch pointer.pointee.type {
        case JSON_OBJECT: return .object
        case JSON_ARRAY: return .array
        case JSON_STRING: return .string
        case JSON_INTEGER: return .integer
        case JSON_REAL: return .real
        case JSON_TRUE, JSON_FALSE: return .bool
        default: return .null
        }
    }

    package var isNull: Bool { kind == .null }

    /// The string (jansson has checked it is UTF-8; NUL is refused at parse time).
    package var string: String? {
        guard kind == .string, let c = json_string_value(pointer) else { return nil }
        return String(cString: c)
    }

    package var bool: Bool? {
        switch pointer.pointee.type {
        case JSON_TRUE: return true
        case JSON_FALSE: return false
        default: return nil
        }
    }

    /// A number without a fractional part as a 64-bit integer (`1e3` and `2.0` count); jansson refuses integer
    /// literals outside Int64 at parse time.
    package var integer: Int64? {
        switch kind {
        case .integer: return Int64(json_integer_value(pointer))
        case .real:
            let d = json_real_value(pointer)
            // 2^63 is exactly representable; anything at or past it does not fit.
            guard d.rounded() == d, d > -9.223372036854775808e18, d < 9.223372036854775808e18 else { return nil }
            return Int64(d)
        default: return nil
        }
    }

    /// Any number as a Double.
    package var double: Double? {
        switch kind {
        case .integer: return Double(json_integer_value(pointer))
        case .real: return json_real_value(pointer)
        default: return nil
        }
    }

    /// Field `name` of an object.
    package subscript(name: String) -> JSONNode? {
        guard kind == .object, let child = json_object_get(pointer, name) else { return nil }
        return JSONNode(child, in: document)
    }

    /// An object's field names, in the text's order.
    package var keys: [String] {
        guard kind == .object else { return [] }
        var names: [String] = []
        var iterator = json_object_iter(pointer)
        while let i = iterator {
            names.append(String(cString: json_object_iter_key(i)))
            iterator = json_object_iter_next(pointer, i)
        }
        return names
    }

    /// An array's elements.
    package var elements: [JSONNode] {
        guard kind == .array else { return [] }
        return (0..<json_array_size(pointer)).map { JSONNode(json_array_get(pointer, $0)!, in: document) }
    }

    /// A short description for error messages: `"abc"`, `12`, `true`, `an object`.
    package var description: String {
        switch kind {
        case .null: return "null"
        case .string:
            let s = string ?? ""
            return "\"" + (s.count > 40 ? String(s.prefix(40)) + "…" : s) + "\""
        case .bool: return bool == true ? "true" : "false"
        case .integer: return String(json_integer_value(pointer))
        case .real: return "\(json_real_value(pointer))"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
