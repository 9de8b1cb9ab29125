/// Picks the declared name a mistyped one was most likely meant to be, for "did you mean …?".
///
/// Edit distance catches typos (`--prodution-port`); the prefix rule catches abbreviations (`--prod`), which we
/// deliberately do not accept as input, since a future option could make them ambiguous and break scripts.
enum Suggestion {
    /// The closest candidate, or nil when none is close enough to be worth suggesting.
    ///
    /// - Parameters:
    ///   - input: What the user typed.
    ///   - candidates: Every valid spelling in this position.
    static func nearest(to input: String, among candidates: [String]) -> String? {
        let scored = candidates.map { (candidate: $0, distance: editDistance(input, $0)) }
        // Allow roughly one mistake per four characters, but always at least one and never more than three.
        let budget = min(3, max(1, input.count / 4))
        if let best = scored.min(by: { $0.distance < $1.distance }), best.distance <= budget {
            return best.candidate
        }
        // An abbreviation needs a few real characters past the dashes before it says anything.
        let stem = input.drop(while: { $0 == "-" })
        guard stem.count >= 3 else { return nil }
        let prefixed = candidates.filter { $0.hasPrefix(input) }
        return prefixed.count == 1 ? prefixed[0] : nil
    }

    /// Edit distance counting a swap of neighbours as one edit (optimal string alignment), since `--prot` for
    /// `--port` is the commonest typo of all; three rolling rows suffice for inputs of a few dozen characters.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let lhs = Array(lhs)
        let rhs = Array(rhs)
        guard !lhs.isEmpty else { return rhs.count }
        guard !rhs.isEmpty else { return lhs.count }
        var beforePrevious = [Int](repeating: 0, count: rhs.count + 1)
        var previous = Array(0...rhs.count)
        var current = [Int](repeating: 0, count: rhs.count + 1)
        for i in 1...lhs.count {
            current[0] = i
            for j in 1...rhs.count {
                let cost = lhs[i - 1] == rhs[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, lhs[i - 1] == rhs[j - 2], lhs[i - 2] == rhs[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[rhs.count]
    }
}
