import H2Transport

/// A device token as the key of the farm's owners table, which every push delivered looks up.
///
/// Hashed by its `Fingerprint` (one word into the seeded `Hasher`) rather than as a String, which feeds all 64
/// hex digits through SipHash after the string's own checks: most of a lookup's cost. Equality is bytewise
/// too, so equal keys always hash alike (String's `==` also equates canonically equivalent text, whose bytes,
/// and so fingerprints, differ). The keys are tokens the control API registered for apps, never chosen by a
/// sender, so the weaker mixing cannot be used to flood the table.
struct TokenKey: Hashable, Sendable {
    let token: String

    init(_ token: String) { self.token = token }

    func hash(into hasher: inout Hasher) { hasher.combine(Fingerprint.of(token)) }

    static func == (a: TokenKey, b: TokenKey) -> Bool {
        let contiguous = a.token.utf8.withContiguousStorageIfAvailable { x in
            b.token.utf8.withContiguousStorageIfAvailable { y in bytesEqual(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y)) }
        }
        if let contiguous, let equal = contiguous { return equal }
        return a.token.utf8.elementsEqual(b.token.utf8)
    }
}
