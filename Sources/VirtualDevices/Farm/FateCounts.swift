/// How many fate steps of each kind were recorded since start, for `/metrics`.
///
/// A fixed array indexed by kind rather than a dictionary: `PushFate.Kind` has string raw values, so as a
/// dictionary key it would hash its name on every push.
struct FateCounts: Sendable {
    private var counts = [Int](repeating: 0, count: PushFate.Kind.allCases.count)

    mutating func add(_ kind: PushFate.Kind) {
        counts[kind.ordinal] += 1
    }

    subscript(kind: PushFate.Kind) -> Int { counts[kind.ordinal] }

    mutating func add(_ other: FateCounts) {
        for i in counts.indices { counts[i] += other.counts[i] }
    }
}

extension PushFate.Kind {
    /// Position in `allCases`, by a switch (no lookup).
    var ordinal: Int {
        switch self {
        case .stored: 0
        case .deferred: 1
        case .delivered: 2
        case .shown: 3
        case .suppressed: 4
        case .coalesced: 5
        case .expired: 6
        case .dropped: 7
        }
    }
}
