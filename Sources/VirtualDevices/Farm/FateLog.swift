/// The newest push fates, in a ring: appending costs one slot write at any size, and the oldest are
/// overwritten once `capacity` is reached (a load test records one or more per push).
struct FateLog: Sendable {
    let capacity: Int
    private var ring: [PushFate] = []
    private var head = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func append(_ fate: consuming PushFate) {
        if ring.count < capacity {
            ring.append(fate)
        } else {
            ring[head] = consume fate
            head = (head + 1) % capacity
        }
    }

    /// Oldest first, those matching `include`.
    func filter(_ include: (PushFate) -> Bool) -> [PushFate] {
        var out: [PushFate] = []
        for i in 0..<ring.count {
            let f = ring[(head + i) % ring.count]
            if include(f) { out.append(f) }
        }
        return out
    }
}
