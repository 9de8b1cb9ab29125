import APNsProtocol
import StateStore
import Synchronization

/// Injected faults, checked for every APNs request.
public final class FaultPlan: Sendable {
    private let rules = Mutex<[FaultRule]>([])
    /// Rule count, readable without the lock: the hot path asks "any faults?" on every request.
    private let count = Atomic<Int>(0)
    private let persistence: any StatePersistence

    public init(persistence: any StatePersistence = NoPersistence()) {
        self.persistence = persistence
    }

    public func add(_ rule: FaultRule) throws {
        try persistence.upsertFault(rule)
        rules.withLock { list in
            list.removeAll { $0.id == rule.id }
            list.append(rule)
            count.store(list.count, ordering: .releasing)
        }
    }

    func restore(_ list: [FaultRule]) {
        rules.withLock {
            $0 = list
            count.store(list.count, ordering: .releasing)
        }
    }

    /// Takes a rule as the shared store has it (another replica's, or this one's read back): memory only. The
    /// same rule already here keeps the uses it has left, which only this replica counts.
    func adopt(_ rule: FaultRule) {
        rules.withLock { list in
            var adopted = rule
            if let here = list.first(where: { $0.id == rule.id && $0.createdAt == rule.createdAt }),
               let left = here.remaining {
                adopted.remaining = min(left, rule.remaining ?? left)
            }
            // In place when it is here already: first match wins, so the order is the rules' meaning.
            if let i = list.firstIndex(where: { $0.id == rule.id }) { list[i] = adopted } else { list.append(adopted) }
            count.store(list.count, ordering: .releasing)
        }
    }

    /// Drops a rule another replica removed: memory only.
    func forget(id: String) {
        rules.withLock {
            $0.removeAll { $0.id == id }
            count.store($0.count, ordering: .releasing)
        }
    }

    @discardableResult
    public func remove(id: String) throws -> Bool {
        guard rules.withLock({ $0.contains { $0.id == id } }) else { return false }
        try persistence.deleteFault(id: id)
        rules.withLock {
            $0.removeAll { $0.id == id }
            count.store($0.count, ordering: .releasing)
        }
        return true
    }

    public func all() -> [FaultRule] { rules.withLock { $0 } }

    /// True when no rule exists: the hot path skips matching entirely.
    public var isEmpty: Bool { count.load(ordering: .acquiring) == 0 }

    /// The first rule hitting this request, consuming one use of a counted rule.
    public func take(token: String?, topic: String?, now: Millis) -> FaultRule? {
        rules.withLock { list -> FaultRule? in
            guard let i = list.firstIndex(where: { $0.matches(token: token, topic: topic, now: now) }) else { return nil }
            if let remaining = list[i].remaining { list[i].remaining = remaining - 1 }
            return list[i]
        }
    }

    func removeAll() {
        rules.withLock {
            $0.removeAll()
            count.store(0, ordering: .releasing)
        }
    }
}
