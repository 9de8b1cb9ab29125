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

    /// Empties the store (keys, tokens, faults, shaping, the cluster journal) and tells every replica to reset;
    /// returns the resets the cluster has now seen (its epoch).
    @discardableResult
    func resetCluster() throws -> Int64

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
