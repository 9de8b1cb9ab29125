import CYAML

/// Reads one YAML (or JSON) document with Debian's libyaml into a `YAMLNode` tree.
///
/// ### Why libyaml's document API
/// `yaml_parser_load` does the YAML work (indentation, flow style, quoting, anchors and aliases, JSON
/// as a subset); this type only walks the finished node table. The C structures never leave this file.
///
/// ### Limits
/// Aliases are expanded into copies, so a "billion laughs" document or a recursive alias would explode:
/// nesting deeper than `maximumDepth` or more than `maximumNodes` expanded nodes is an error at the
/// node that crossed the line. Duplicate mapping keys are errors too (YAML forbids them; libyaml lets
/// them through).
public enum YAMLLoader {
    public static let maximumDepth = 64
    public static let maximumNodes = 200_000

    /// Why a document could not be read: a message and where.
    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var message: String
        public var mark: YAMLNode.Mark
        public var description: String { "\(mark): \(message)" }
    }

    /// Parses the first document of `text`; nil for an empty document (no content at all).
    public static func load(_ text: String) throws(Failure) -> YAMLNode? {
        try loadAll(text).first
    }

    /// Parses every document of `text` (separated by `---`), skipping empty ones.
    public static func loadAll(_ text: String) throws(Failure) -> [YAMLNode] {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw Failure(message: "libyaml could not start (out of memory)", mark: .init(line: 1, column: 1))
        }
        defer { yaml_parser_delete(&parser) }
        let bytes = Array(text.utf8)
        return try bytes.withUnsafeBufferPointer { (buffer) throws(Failure) -> [YAMLNode] in
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var documents: [YAMLNode] = []
            var total = 0
            while true {
                var document = yaml_document_t()
                guard yaml_parser_load(&parser, &document) == 1 else {
                    let problem = parser.problem.map { String(cString: $0) } ?? "invalid YAML"
                    let context = parser.context.map { String(cString: $0) + ": " } ?? ""
                    throw Failure(message: context + problem, mark: mark(parser.problem_mark))
                }
                defer { yaml_document_delete(&document) }
                // libyaml signals the end of the stream with an empty document.
                guard let root = yaml_document_get_root_node(&document) else {
                    if parser.stream_end_produced != 0 { return documents }
                    continue
                }
                let converted = try withUnsafeMutablePointer(to: &document) { (doc) throws(Failure) -> (YAMLNode, Int) in
                    var walker = Walker(document: doc, count: total)
                    return (try walker.convert(root, depth: 0), walker.count)
                }
                documents.append(converted.0)
                total = converted.1
            }
        }
    }

    static func mark(_ m: yaml_mark_t) -> YAMLNode.Mark {
        YAMLNode.Mark(line: Int(m.line) + 1, column: Int(m.column) + 1)
    }

    /// Converts libyaml's node table into Swift values, counting expanded nodes.
    private struct Walker {
        let document: UnsafeMutablePointer<yaml_document_t>
        var count = 0

        init(document: UnsafeMutablePointer<yaml_document_t>, count: Int) {
            self.document = document
            self.count = count
        }

        mutating func convert(_ node: UnsafeMutablePointer<yaml_node_t>, depth: Int) throws(Failure) -> YAMLNode {
            let m = YAMLLoader.mark(node.pointee.start_mark)
            count += 1
            guard depth < YAMLLoader.maximumDepth else {
                throw Failure(message: "nested more than \(YAMLLoader.maximumDepth) levels (or a recursive alias)", mark: m)
            }
            guard count <= YAMLLoader.maximumNodes else {
                throw Failure(message: "more than \(YAMLLoader.maximumNodes) values once aliases are expanded", mark: m)
            }
            switch node.pointee.type {
            case YAML_SCALAR_NODE:
                let s = node.pointee.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: s.value, count: s.length), as: UTF8.self)
                return .scalar(text, quoted: s.style != YAML_PLAIN_SCALAR_STYLE, m)
            case YAML_SEQUENCE_NODE:
                var items: [YAMLNode] = []
                var p = node.pointee.data.sequence.items.start
                while let current = p, current != node.pointee.data.sequence.items.top {
                    guard let child = yaml_document_get_node(document, current.pointee) else { break }
                    items.append(try convert(child, depth: depth + 1))
                    p = current + 1
                }
                return .sequence(items, m)
            case YAML_MAPPING_NODE:
                var pairs: [(key: YAMLNode, value: YAMLNode)] = []
                var p = node.pointee.data.mapping.pairs.start
                while let current = p, current != node.pointee.data.mapping.pairs.top {
                    guard let k = yaml_document_get_node(document, current.pointee.key),
                          let v = yaml_document_get_node(document, current.pointee.value) else { break }
                    let key = try convert(k, depth: depth + 1)
                    if case .scalar(let name, _, _) = key,
                       pairs.contains(where: { if case .scalar(name, _, _) = $0.key { return true } else { return false } }) {
                        throw Failure(message: "duplicate key '\(name)'", mark: key.mark)
                    }
                    pairs.append((key, try convert(v, depth: depth + 1)))
                    p = current + 1
                }
                return .mapping(pairs, m)
            default:
                return .scalar("", quoted: false, m)
            }
        }
    }
}
