/// A device token as the key of the farm's owners table, which every push delivered looks up.
///
/// Hashed by its `Fingerprint` (one word into the seeded `Hasher`) rather than as a String, which feeds all 64
/// hex digits through SipHash after the string's own checks: most of a lookup's cost. Equality is the
/// string's. The keys are tokens the control API registered for apps, never chosen by a sender, so the
/// weaker mixing cannot be used to flood the table.
struct TokenKey: Hashable, Sendable {
    let token: String

    init(_ token: String) { self.token = token }

    func hash(into hasher: inout Hasher) { hasher.combine(Fingerprint.of(token)) }
}
