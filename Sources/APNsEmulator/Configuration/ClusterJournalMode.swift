/// When a replica answers an accepted push, relative to its copy into the cluster journal.
public enum ClusterJournalMode: String, Sendable, CaseIterable {
    /// At once, the entry copied within 50 ms: a replica killed outright loses the copies of its last interval.
    case behind
    /// Once the entry is in the cluster journal (copied in groups, about a Redis round trip later): a replica
    /// killed outright loses no push a client saw accepted, and a cluster journal read after the answer holds it.
    case durable
}
