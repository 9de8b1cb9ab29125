extension DER {
    /// One decoded TLV: enough to walk Apple's topics extension or a subjectAltName by hand.
    public struct Node: Sendable, Hashable {
        /// The identifier octet (single-byte tags only).
        public var tag: UInt8
        /// The content octets.
        public var content: [UInt8]

        /// Whether the constructed bit is set, i.e. `content` holds further TLVs.
        public var isConstructed: Bool { tag & 0x20 != 0 }

        /// The TLVs inside a constructed node (a SEQUENCE's elements).
        public func children() throws(ParseError) -> [Node] {
            guard isConstructed else { throw ParseError(reason: "tag 0x\(String(tag, radix: 16)) is primitive") }
            return try DER.parseAll(content)
        }

        /// The content as text, for UTF8String, PrintableString and IA5String nodes.
        public var string: String? {
            switch tag {
            case Tag.utf8String, Tag.printableString, Tag.ia5String:
                return String(validating: content, as: UTF8.self)
            default:
                return nil
            }
        }
    }

    /// Input that is not the DER this parser accepts; the reason names the byte offset where it can.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What was wrong.
        public var reason: String

        /// - Parameter reason: What was wrong; decoders built on `DER.Node` use this for their own checks.
        public init(reason: String) {
            self.reason = reason
        }

        public var description: String { "DER.ParseError: \(reason)" }
    }

    /// Parses exactly one TLV that spans all of `bytes`.
    /// - Parameter bytes: DER of a single element, e.g. an extension value.
    public static func parse(_ bytes: [UInt8]) throws(ParseError) -> Node {
        let nodes = try parseAll(bytes)
        guard nodes.count == 1 else { throw ParseError(reason: "expected one element, found \(nodes.count)") }
        return nodes[0]
    }

    /// Parses consecutive TLVs that together span all of `bytes`.
    /// - Parameter bytes: Concatenated DER elements, e.g. a SEQUENCE's content.
    public static func parseAll(_ bytes: [UInt8]) throws(ParseError) -> [Node] {
        var nodes: [Node] = []
        var offset = 0
        while offset < bytes.count {
            let tag = bytes[offset]
            guard tag & 0x1F != 0x1F else { throw ParseError(reason: "high tag number at offset \(offset)") }
            let (length, lengthEnd) = try readLength(bytes, at: offset + 1)
            guard length <= bytes.count - lengthEnd else {
                throw ParseError(reason: "length \(length) at offset \(offset) runs past the end")
            }
            nodes.append(Node(tag: tag, content: Array(bytes[lengthEnd..<lengthEnd + length])))
            offset = lengthEnd + length
        }
        return nodes
    }

    /// Reads a definite length, rejecting non-minimal encodings as DER requires.
    private static func readLength(_ bytes: [UInt8], at offset: Int) throws(ParseError) -> (Int, Int) {
        guard offset < bytes.count else { throw ParseError(reason: "missing length at offset \(offset)") }
        let first = bytes[offset]
        if first < 0x80 {
            return (Int(first), offset + 1)
        }
        let octets = Int(first & 0x7F)
        guard octets >= 1, octets <= 4, offset + octets < bytes.count else {
            throw ParseError(reason: "unsupported length form 0x\(String(first, radix: 16)) at offset \(offset)")
        }
        let lengthOctets = bytes[(offset + 1)...(offset + octets)]
        guard lengthOctets.first != 0 else { throw ParseError(reason: "non-minimal length at offset \(offset)") }
        let length = lengthOctets.reduce(0) { $0 << 8 | Int($1) }
        guard length >= 0x80 else { throw ParseError(reason: "non-minimal length at offset \(offset)") }
        return (length, offset + 1 + octets)
    }
}
