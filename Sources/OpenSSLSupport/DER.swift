/// A minimal DER writer (X.690) for the values OpenSSL has no builder for.
///
/// Apple's push-certificate extensions (the DER NULL environment markers and the topics
/// `SEQUENCE` of UTF8Strings) and the subjectAltName list are built here, because their contents are
/// caller data: encoding them as bytes avoids OpenSSL's config-string syntax, where a comma in a value
/// would be read as a separator. Only definite, minimal lengths are produced, as DER requires.
public enum DER {
    /// Universal tag numbers used by this writer and its parser.
    public enum Tag {
        public static let boolean: UInt8 = 0x01
        public static let integer: UInt8 = 0x02
        public static let octetString: UInt8 = 0x04
        public static let null: UInt8 = 0x05
        public static let objectIdentifier: UInt8 = 0x06
        public static let utf8String: UInt8 = 0x0C
        public static let printableString: UInt8 = 0x13
        public static let ia5String: UInt8 = 0x16
        public static let sequence: UInt8 = 0x30
        public static let set: UInt8 = 0x31
    }

    /// `05 00`, the value of Apple's environment extensions (`…6.3.1` sandbox, `…6.3.2` production).
    public static let null: [UInt8] = [Tag.null, 0x00]

    /// A SEQUENCE of already-encoded elements, in the given order.
    /// - Parameter elements: Each element's complete TLV encoding.
    public static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        element(tag: Tag.sequence, content: elements.flatMap { $0 })
    }

    /// Variadic form of `sequence(_:)` for literal structures such as `sequence(utf8String("app"))`.
    public static func sequence(_ elements: [UInt8]...) -> [UInt8] {
        sequence(elements)
    }

    /// A UTF8String; Apple's topics extension uses this type for topic names and kinds.
    public static func utf8String(_ text: String) -> [UInt8] {
        element(tag: Tag.utf8String, content: Array(text.utf8))
    }

    /// An IA5String (ASCII), the type of dNSName.
    public static func ia5String(_ text: String) -> [UInt8] {
        element(tag: Tag.ia5String, content: Array(text.utf8))
    }

    /// An OCTET STRING around arbitrary bytes.
    public static func octetString(_ bytes: [UInt8]) -> [UInt8] {
        element(tag: Tag.octetString, content: bytes)
    }

    /// A context-specific `[number] IMPLICIT` primitive, as GeneralName's `dNSName [2]` and `iPAddress [7]`.
    /// - Parameters:
    ///   - number: Tag number, 0…30.
    ///   - content: The primitive's content octets.
    public static func contextSpecific(_ number: UInt8, content: [UInt8]) -> [UInt8] {
        precondition(number < 31, "high tag numbers are not supported: \(number)")
        return element(tag: 0x80 | number, content: content)
    }

    /// Any single-byte tag around content octets, with a minimal definite length.
    /// - Parameters:
    ///   - tag: Complete identifier octet (class, constructed bit and number).
    ///   - content: Content octets.
    public static func element(tag: UInt8, content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    /// Short form below 128, otherwise long form with the fewest length octets (X.690 §10.1).
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 {
            return [UInt8(count)]
        }
        var octets: [UInt8] = []
        var remaining = count
        while remaining > 0 {
            octets.insert(UInt8(remaining & 0xFF), at: 0)
            remaining >>= 8
        }
        return [0x80 | UInt8(octets.count)] + octets
    }
}
