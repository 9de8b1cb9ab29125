import H2Transport
import WireBytes

/// A device token as the key of the tables looked up on every push: the token registry's (validation) and the
/// device farm's owners.
///
/// Hashed by its `Fingerprint` (one word into the seeded `Hasher`) rather than as a String, which feeds all 64
/// hex digits through SipHash after the string's own checks: most of a lookup's cost. Equality is bytewise
/// too, so equal keys always hash alike (String's `==` also equates canonically equivalent text, whose bytes,
/// and so fingerprints, differ); tokens are lowercase hex by the time they are keys. The keys are tokens the
/// control API registered or the emulator issued, never ones a sender's request adds, so the weaker mixing
/// cannot be used to flood a table.
package struct TokenKey: Hashable, Sendable {
    package let token: String

    package init(_ token: String) { self.token = token }

    package func hash(into hasher: inout Hasher) { hasher.combine(Fingerprint.of(token)) }

    /// Whether this key is `token`, byte for byte (as `==` compares keys, without making one of `token`).
    package func matches(_ token: String) -> Bool {
        withUTF8Bytes(self.token) { x in withUTF8Bytes(token) { y in bytesEqual(x, y) } }
    }

    package static func == (a: TokenKey, b: TokenKey) -> Bool { a.matches(b.token) }
}
