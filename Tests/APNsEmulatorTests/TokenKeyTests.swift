import Testing

@testable import APNsEmulator

/// The token tables' key: hashed by fingerprint, equal by the whole token.
@Suite struct TokenKeyTests {
    /// Every token finds its own value, never another's, including tokens differing in one digit and
    /// tokens of other lengths.
    @Test func eachTokenFindsItsOwnEntryOnly() {
        var rng = SystemRandomNumberGenerator()
        let hex = Array("0123456789abcdef")
        var tokens = (0..<2000).map { _ in String((0..<64).map { _ in hex[Int.random(in: 0..<16, using: &rng)] }) }
        let base = tokens[0]
        for i in 0..<64 {
            var chars = Array(base)
            chars[i] = chars[i] == "0" ? "1" : "0"
            tokens.append(String(chars))
        }
        tokens += [String(base.prefix(63)), base + "0", ""]
        tokens = Array(Set(tokens))
        var table: [TokenKey: Int] = [:]
        for (i, t) in tokens.enumerated() { table[TokenKey(t)] = i }
        #expect(table.count == tokens.count)
        for (i, t) in tokens.enumerated() { #expect(table[TokenKey(t)] == i) }
        #expect(table[TokenKey(String(base.reversed()) + "x")] == nil)
    }

    /// Keys are equal exactly when their bytes are (canonically equivalent text is not), so equal keys always
    /// hash alike.
    @Test func equalityIsBytewise() {
        #expect(TokenKey("ab" + String(repeating: "0", count: 62)) == TokenKey("ab" + String(repeating: "0", count: 62)))
        #expect(TokenKey("\u{E9}") != TokenKey("e\u{301}"))
        #expect(TokenKey("abc") != TokenKey("abd") && TokenKey("abc") != TokenKey("ab"))
    }

    /// `matches` answers what `==` with a key made of the token would, without making one.
    @Test func matchesAgreesWithEquality() {
        let token = "ab" + String(repeating: "0", count: 62)
        for other in [token, String(token.dropLast()), token + "0", String(token.dropLast()) + "1", "", "\u{E9}"] {
            #expect(TokenKey(token).matches(other) == (TokenKey(token) == TokenKey(other)), "\(other)")
        }
        #expect(TokenKey("\u{E9}").matches("\u{E9}") && !TokenKey("\u{E9}").matches("e\u{301}"))
        // Another String with the same bytes (not the same storage) matches too.
        #expect(TokenKey(token).matches(String(decoding: Array(token.utf8), as: UTF8.self)))
    }
}
