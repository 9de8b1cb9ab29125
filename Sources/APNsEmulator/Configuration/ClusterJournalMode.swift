/// When a replica answers an accepted push, relative to its copy into the cluster journal.
public enum ClusterJournalMode: String, Sendable, CaseIterable {
    /// Once the entry is in the cluster journal (copied in groups, about a Redis round trip later): a replica
    /// killed outright loses no push a client saw accepted.
    case durable
    /// At once, the entry copied within 50 ms: a replica killed outright loses the copies of its last interval.
    case behind
}
