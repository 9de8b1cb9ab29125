/// A YAML node with where it starts in its file, as libyaml read it (aliases already expanded).
///
/// Scenario errors must say file:line:column, so every node keeps its mark; values stay untyped
/// (`scalar` text plus whether it was quoted) until a reader asks for a type.
public indirect enum YAMLNode: Sendable, Equatable {
    case scalar(String, quoted: Bool, Mark)
    case sequence([YAMLNode], Mark)
    case mapping([(key: YAMLNode, value: YAMLNode)], Mark)

    /// A 1-based position in the source file.
    public struct Mark: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var column: Int
        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
        public var description: String { "\(line):\(column)" }
    }

    public var mark: Mark {
        switch self {
        case .scalar(_, _, let m), .sequence(_, let m), .mapping(_, let m): return m
        }
    }

    /// What kind of node this is, for "expected …, got …" messages.
    public var kindDescription: String {
        switch self {
        case .scalar(let text, let quoted, _):
            if !quoted && YAMLNode.isNull(text) { return "null" }
            return "a scalar (\(text.count > 40 ? String(text.prefix(40)) + "…" : text))"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }

    /// Plain `~`, `null` or nothing.
    static func isNull(_ text: String) -> Bool {
        text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
    }

    public static func == (a: YAMLNode, b: YAMLNode) -> Bool {
        switch (a, b) {
        case let (.scalar(x, qx, mx), .scalar(y, qy, my)): return x == y && qx == qy && mx == my
        case let (.sequence(x, mx), .sequence(y, my)): return x == y && mx == my
        case let (.mapping(x, mx), .mapping(y, my)):
            return mx == my && x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}
