import WireBytes

/// One text of a `JournalFilter` read into bytes once per query, so that each stored entry is compared byte for
/// byte: a filter on content runs over every entry under the journal's lock, which pushes take too.
///
/// The answers are those of String comparison: bytes decide for ASCII, Strings only where either side is not.
struct JournalFilterText {
    let text: String
    private let lowercasedText: String
    private let bytes: [UInt8]
    /// ASCII letters lowercased (meaningful only when `textIsASCII`).
    private let folded: [UInt8]
    private let textIsASCII: Bool

    init(_ text: String) {
        self.text = text
        lowercasedText = text.lowercased()
        bytes = Array(text.utf8)
        textIsASCII = bytes.withUnsafeBytes(isASCII)
        folded = bytes.map(Self.lower)
    }

    /// `String(decoding: stored) == text`.
    func equals(_ stored: UnsafeRawBufferPointer?) -> Bool {
        guard let stored else { return false }
        if stored.count == bytes.count && bytes.withUnsafeBytes({ bytesEqual($0, stored) }) { return true }
        if textIsASCII && isASCII(stored) { return false }
        return String(decoding: stored, as: UTF8.self) == text
    }

    /// `String(decoding: stored).lowercased() == text.lowercased()`.
    func equalsIgnoringCase(_ stored: UnsafeRawBufferPointer?) -> Bool {
        guard let stored else { return false }
        if textIsASCII {
            // Each byte of `folded` is ASCII, so a match here means `stored` is ASCII too and the bytes decide.
            if stored.count == folded.count && folded.withUnsafeBytes({ Self.foldedEqual(stored, $0) }) { return true }
            if isASCII(stored) { return false }
        }
        return String(decoding: stored, as: UTF8.self).lowercased() == lowercasedText
    }

    private static func lower(_ b: UInt8) -> UInt8 { (b &- UInt8(ascii: "A")) < 26 ? b | 0x20 : b }

    /// Whether `stored` lowercased is `folded` (of the same count).
    private static func foldedEqual(_ stored: UnsafeRawBufferPointer, _ folded: UnsafeRawBufferPointer) -> Bool {
        for i in 0..<stored.count where lower(stored[i]) != folded[i] { return false }
        return true
    }
}

/// A `JournalFilter` with its texts prepared (`JournalFilterText`), made once for a query's walk.
struct JournalMatcher {
    let filter: JournalFilter
    let reason, topic, apnsId: JournalFilterText?
    /// The token as given (a path's token is compared ignoring case) and lowercased (a stored token is lowercase).
    let token, lowercasedToken: JournalFilterText?

    init(_ filter: JournalFilter) {
        self.filter = filter
        reason = filter.reason.map(JournalFilterText.init)
        topic = filter.topic.map(JournalFilterText.init)
        apnsId = filter.apnsId.map(JournalFilterText.init)
        token = filter.token.map(JournalFilterText.init)
        lowercasedToken = filter.token.map { JournalFilterText($0.lowercased()) }
    }
}
