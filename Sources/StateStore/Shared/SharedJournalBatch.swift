/// A batch of one replica's journal entries in the cluster journal, as that replica copied them.
public struct SharedJournalBatch: Sendable, Equatable {
    /// The store's position (a Redis stream id), nil before it is appended.
    public var position: String?
    public var replica: String
    /// How many entries `entries` holds.
    public var count: Int
    /// The entries in the replica's own layout, and the layout's name (a reader skips layouts it does not know).
    public var format: String
    public var entries: [UInt8]
    /// Entries the layout refers to by id (JSON array).
    public var aside: [UInt8]

    public init(position: String? = nil, replica: String, count: Int, format: String, entries: [UInt8], aside: [UInt8]) {
        self.position = position
        self.replica = replica
        self.count = count
        self.format = format
        self.entries = entries
        self.aside = aside
    }
}
