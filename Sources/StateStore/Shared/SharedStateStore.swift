/// A change to the shared state, as a shared store's feed reports it (every replica's, this one's too, in the
/// order the store made them). Only the name travels: the value is read back from the store, so a late or
/// repeated message can never roll a newer change back.
public struct SharedStateChange: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case key(String)
        case token(String)
        case fault(String)
        case shaping
        /// A broadcast channel (by id) was created or deleted.
        case channel(String)
        /// A manual clock was moved, frozen or let run.
        case clock
        /// Anything may have changed: an import, or the feed reconnected and may have missed messages.
        case everything
        /// Another replica was reset (`POST /_emulator/reset`): forget what is not in the store too (journal,
        /// channels, devices).
        case reset
    }

    public var kind: Kind
    /// The change's number in the store (nil when the feed itself reports `.everything` after reconnecting).
    public var version: Int64?
    /// This replica made it (its memory already has it, unless the write's reply was lost).
    public var ownChange: Bool

    public init(_ kind: Kind, version: Int64?, ownChange: Bool = false) {
        self.kind = kind
        self.version = version
        self.ownChange = ownChange
    }
}

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

/// A replica as the store knows it: what it last reported and whether it is still reporting.
public struct SharedReplica: Sendable, Equatable {
    public var id: String
    /// The replica's own report (JSON), as it last wrote it.
    public var json: [UInt8]
    /// False once it has missed its heartbeats for longer than their time to live (stopped or dead).
    public var live: Bool

    public init(id: String, json: [UInt8], live: Bool) {
        self.id = id
        self.json = json
        self.live = live
    }
}

/// A store several emulators share live (`--state-store`): writes go through it like any `StatePersistence`,
/// and each replica hears the others' changes through `watch`. The push path never calls it: registries
/// answer from memory, kept current by the feed.
public protocol SharedStateStore: StatePersistence {
    /// This replica's name in the store (`--replica-id`).
    var replicaId: String { get }
    /// The store's address, for logs and the control API.
    var location: String { get }

    /// Starts reporting changes to `handler`, in order, on the store's own thread. Changes made since the store
    /// was opened are reported too, so nothing between `load()` and this call is missed.
    func watch(_ handler: @escaping @Sendable (SharedStateChange) -> Void)

    func key(_ keyId: String) throws -> ProviderKeyRecord?
    func token(_ token: String) throws -> DeviceTokenRecord?
    func fault(_ id: String) throws -> FaultRule?
    /// The shaping every replica applies (JSON), nil when none was set since the last reset.
    func shaping() throws -> [UInt8]?
    func setShaping(_ json: [UInt8]?) throws
    /// Broadcast channels (JSON by channel id): one, all, and a create (`json`) or delete (nil).
    func channel(_ id: String) throws -> [UInt8]?
    func channels() throws -> [String: [UInt8]]
    func setChannel(_ id: String, _ json: [UInt8]?) throws
    /// The manual clock replicas run on (JSON), nil until one moved it.
    func clock() throws -> [UInt8]?
    func setClock(_ json: [UInt8]) throws

    /// Empties the store (keys, tokens, faults, shaping, the cluster journal) and tells every replica to reset.
    func resetCluster() throws

    /// Adds a batch to the cluster journal, which keeps about `capacity` entries (the oldest batches dropped), and
    /// records `newestLocalId` as `incarnation`'s mark in the same step. False (nothing added) when the cluster
    /// was reset since `epoch`: the batch holds entries the reset forgot.
    func appendJournal(_ batch: SharedJournalBatch, newestLocalId: Int64, incarnation: String, epoch: Int64,
                       capacity: Int) throws -> Bool
    /// How many times the cluster was reset (`resetCluster` counts it).
    func currentEpoch() throws -> Int64
    /// The newest local id `incarnation` (one run of one replica) has in the cluster journal, 0 for none:
    /// after a failed append, where to resume without adding anything twice.
    func journalMark(_ incarnation: String) throws -> Int64
    /// Batches from `start` on, oldest first, at most `count`: `start` is a batch's position (itself included),
    /// `(` and a position (after it), or `-` (the oldest kept).
    func journalBatches(from start: String, count: Int) throws -> [SharedJournalBatch]
    /// How many entries the cluster journal holds.
    func journalCount() throws -> Int
    func clearJournal() throws

    /// Claims this replica's id for `incarnation`, refusing when another live replica holds it.
    func claimReplicaId(_ incarnation: String, ttlMillis: Int) throws
    /// Records this replica's report; it counts as live for `ttlMillis`.
    func heartbeat(_ json: [UInt8], ttlMillis: Int) throws
    /// Every replica that has reported, by id (a reset forgets those no longer live).
    func replicas() throws -> [SharedReplica]

    /// The number of the latest change any replica made (0 before the first).
    func currentVersion() throws -> Int64
    /// Records that this replica has applied every change up to `version`.
    func markApplied(_ version: Int64) throws
    /// Per replica id, the latest change it has applied.
    func appliedVersions() throws -> [String: Int64]

    /// Hands pushes to other replicas' inboxes (each a capped stream of at most `capacity`), in one round trip.
    func forwardDeliveries(_ batches: [(replica: String, items: [[UInt8]])], capacity: Int) throws
    /// This replica's inbox, from now on; read on one thread.
    func openDeliveryInbox() throws -> any SharedDeliveryInbox

    /// Stops the feed and closes connections.
    func stop()
}

/// Pushes other replicas accepted for this replica's virtual devices, in the order they were handed over.
/// Not thread-safe: one reader thread owns it.
public protocol SharedDeliveryInbox: AnyObject {
    /// Waits up to `waitMillis` for pushes handed over since the last call (since opening, on the first) and
    /// returns them; reconnects after a failure without losing its place.
    func next(waitMillis: Int) throws -> [[UInt8]]
    func close()
}
