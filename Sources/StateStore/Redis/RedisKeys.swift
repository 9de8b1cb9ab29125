/// The names the shared store uses in Redis, all under one prefix so a database can be inspected (or
/// shared with other data) without guessing.
struct RedisKeys: Sendable {
    let prefix: String

    var keys: String { prefix + "keys" }
    var tokens: String { prefix + "tokens" }
    var faults: String { prefix + "faults" }
    /// A hash with one field, `settings`: the shaping every replica applies.
    var shaping: String { prefix + "shaping" }
    /// The manual clock: `{"now", "frozen"}` as last set.
    var clock: String { prefix + "clock" }
    /// Broadcast channels: id → JSON.
    var channels: String { prefix + "channels" }
    /// The pub/sub channel that carries change notices ("replica\nkind\nid\nversion").
    var changes: String { prefix + "changes" }
    /// The number of the latest change (every write increments it).
    var version: String { prefix + "version" }
    /// Per replica, the latest change it has applied (what `sync` waits on).
    var applied: String { prefix + "applied" }
    /// The cluster journal, a stream of batches, and how many entries its batches hold.
    var journal: String { prefix + "journal" }
    var journalCount: String { prefix + "journal-count" }
    /// Each batch's entry count, oldest first: what trimming drops without reading a batch back. (Builds that
    /// kept `<id> <entries>` lines used `journal-sizes`; this name keeps the two apart on one Redis.)
    var journalCounts: String { prefix + "journal-counts" }
    /// How many times the cluster was reset: a journal batch read before a reset is refused after it.
    var epoch: String { prefix + "epoch" }
    /// Per replica incarnation, the newest local journal id already in the stream (so a retried append
    /// after a lost reply adds nothing twice).
    var journalMarks: String { prefix + "journal-marks" }
    /// Every replica's last report, by id.
    var replicas: String { prefix + "replicas" }
    /// Pushes other replicas accepted for `replica`'s virtual devices, a capped stream.
    func inbox(_ replica: String) -> String { prefix + "inbox:" + replica }
    /// Present while the replica is live (expires when its heartbeats stop).
    func alive(_ replica: String) -> String { prefix + "alive:" + replica }

    /// The collection a change notice's kind names.
    enum Kind: String {
        case key, token, fault, shaping, channel, clock
        /// Replaced whole (import).
        case all
        /// `POST /_emulator/reset` on some replica: everything forgotten cluster-wide.
        case reset
    }
}
