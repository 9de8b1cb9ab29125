/// An `application/x-www-form-urlencoded` body (what OAuth token requests are): `name=value` pairs joined by `&`,
/// `+` for a space, `%XX` escapes. Malformed escapes make the body unreadable rather than guessed at.
struct FormBody {
    private(set) var fields: [(name: String, value: String)] = []

    /// Nil when a name or value has a bad escape or is not UTF-8.
    init?(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count > 1 ? parts[1] : "") else { return nil }
            fields.append((name, value))
        }
    }

    func value(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    private static func decode(_ part: Substring) -> String? {
        String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
