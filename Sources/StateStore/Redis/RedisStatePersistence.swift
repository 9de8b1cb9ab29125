import Foundation
import Synchronization

/// Keys, tokens, faults and shaping in Redis, shared live by every emulator pointed at the same server
/// (`serve --state-store redis://HOST:PORT[/DB]`), with the cluster journal and the replicas' reports.
///
/// Each write is one `MULTI … EXEC`: the value and a numbered change notice on one pub/sub channel, so a replica
/// that hears the notice reads the value already there. Writes come from control calls, the devices' registrations
/// and the replication thread, never from the push path, which reads the registries' memory that `RedisChangeFeed`
/// keeps current.
public final class RedisStatePersistence: SharedStateStore {
    public let address: RedisAddress
    public let replicaId: String
    public var location: String { address.description }

    private let names: RedisKeys
    /// Control writes and the feed's read-backs take turns on one connection; the journal copy, the push hand-over
    /// and the heartbeats on another, so a large batch does not hold up a change. A broken one is replaced on the
    /// next call.
    private let connection: RedisConnectionSlot
    private let bulk: RedisConnectionSlot
    private let feed: RedisChangeFeed

    /// Connects (so an unreachable server is reported at start, naming it) and subscribes to the change feed
    /// before anything is loaded.
    public init(address: RedisAddress, replicaId: String, prefix: String = "apns-emulator:") throws {
        self.address = address
        self.replicaId = replicaId
        self.names = RedisKeys(prefix: prefix)
        self.connection = try RedisConnectionSlot(address, connectNow: true)
        self.bulk = try RedisConnectionSlot(address, connectNow: false)
        self.feed = try RedisChangeFeed(address: address, channel: names.changes)
    }

    /// Stops the feed and closes the connections (`EmulatorServices.stopReplication` calls it; nothing else
    /// waits for the feed's thread, which may be the caller).
    public func stop() {
        feed.stop()
        connection.close()
        bulk.close()
    }

    /// Claims `replicaId` for this run (`alive:<id>` set only if absent), so two live replicas never share an id
    /// (they would ignore each other's notices and read one inbox).
    public func claimReplicaId(_ incarnation: String, ttlMillis: Int) throws {
        let reply = try checked("claiming replica id \(replicaId)") {
            try $0.command(["SET", names.alive(replicaId), incarnation, "NX", "PX", String(ttlMillis)])
        }
        guard reply == .status("OK") else {
            throw RedisError(address, "claiming replica id \(replicaId)", "a live replica already uses it; give each "
                             + "replica its own --replica-id (or wait \(ttlMillis / 1000) s after stopping the last one)")
        }
    }

    public func watch(_ handler: @escaping @Sendable (SharedStateChange) -> Void) { feed.start(handler) }

    // MARK: StatePersistence

    public func load() throws -> EmulatorState {
        let replies = try transaction("reading the shared state", [
            ["HGETALL", names.keys], ["HGETALL", names.tokens], ["HGETALL", names.faults],
        ].map(Self.args))
        return EmulatorState(keys: try decodeHash(replies[0], ProviderKeyRecord.self, "keys"),
                             tokens: try decodeHash(replies[1], DeviceTokenRecord.self, "tokens"),
                             faults: try decodeHash(replies[2], FaultRule.self, "faults"))
    }

    public func upsertKey(_ key: ProviderKeyRecord) throws { try put(names.keys, .key, key.keyId, key) }
    public func deleteKey(keyId: String) throws { try delete(names.keys, .key, keyId) }
    public func upsertToken(_ token: DeviceTokenRecord) throws { try put(names.tokens, .token, token.token, token) }
    public func deleteToken(_ token: String) throws { try delete(names.tokens, .token, token) }
    public func upsertFault(_ fault: FaultRule) throws { try put(names.faults, .fault, fault.id, fault) }
    public func deleteFault(id: String) throws { try delete(names.faults, .fault, id) }

    public func replaceAll(with state: EmulatorState) throws {
        var commands: [[[UInt8]]] = [Self.args(["DEL", names.keys, names.tokens, names.faults])]
        commands += try hashSets(names.keys, state.keys.map { ($0.keyId, try Self.json($0)) })
        commands += try hashSets(names.tokens, state.tokens.map { ($0.token, try Self.json($0)) })
        commands += try hashSets(names.faults, state.faults.map { ($0.id, try Self.json($0)) })
        commands.append(notice(.all, ""))
        // Not retried: a large import may outlast the read timeout and still have run.
        _ = try transaction("replacing the shared state", retry: false, commands)
    }

    // MARK: SharedStateStore

    public func key(_ keyId: String) throws -> ProviderKeyRecord? { try fetch(names.keys, keyId) }
    public func token(_ token: String) throws -> DeviceTokenRecord? { try fetch(names.tokens, token) }
    public func fault(_ id: String) throws -> FaultRule? { try fetch(names.faults, id) }

    public func shaping() throws -> [UInt8]? {
        try checked("reading the shaping") { try $0.command(["HGET", names.shaping, "settings"]) }.bytes
    }

    public func setShaping(_ json: [UInt8]?) throws {
        let write = json.map { [Array("HSET".utf8), Array(names.shaping.utf8), Array("settings".utf8), $0] }
            ?? Self.args(["DEL", names.shaping])
        _ = try transaction("writing the shaping", [write, notice(.shaping, "")])
    }

    public func channel(_ id: String) throws -> [UInt8]? {
        try checked("reading channel \(id)") { try $0.command(["HGET", names.channels, id]) }.bytes
    }

    public func channels() throws -> [String: [UInt8]] {
        let reply = try checked("reading the channels") { try $0.command(["HGETALL", names.channels]) }
        return Dictionary(reply.pairs.compactMap { k, v in k.text.flatMap { id in v.bytes.map { (id, $0) } } },
                          uniquingKeysWith: { a, _ in a })
    }

    public func setChannel(_ id: String, _ json: [UInt8]?) throws {
        let write = json.map { [Array("HSET".utf8), Array(names.channels.utf8), Array(id.utf8), $0] }
            ?? Self.args(["HDEL", names.channels, id])
        _ = try transaction("writing channel \(id)", [write, notice(.channel, id)])
    }

    public func clock() throws -> [UInt8]? {
        try checked("reading the clock") { try $0.command(["GET", names.clock]) }.bytes
    }

    public func setClock(_ json: [UInt8]) throws {
        _ = try transaction("writing the clock", [[Array("SET".utf8), Array(names.clock.utf8), json], notice(.clock, "")])
    }

    /// Forgets the replicas that are no longer live (their reports and inboxes): a reset starts the listing afresh.
    private static let forgetLostScript = """
        for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do
            if redis.call('EXISTS', ARGV[1] .. id) == 0 then
                redis.call('HDEL', KEYS[1], id)
                redis.call('HDEL', KEYS[2], id)
                redis.call('DEL', ARGV[2] .. id)
            end
        end
        return 0
        """

    @discardableResult
    public func resetCluster() throws -> Int64 {
        let results = try transaction("resetting the shared state", retry: false, [
            Self.args(["DEL", names.keys, names.tokens, names.faults, names.shaping, names.channels, names.journal,
                       names.journalCount, names.journalCounts, names.journalMarks]),
            Self.args(["INCR", names.epoch]),
            Self.args(["EVAL", Self.forgetLostScript, "2", names.replicas, names.applied, names.alive(""), names.inbox("")]),
            notice(.reset, ""),
        ])
        guard results.count > 1, case .integer(let epoch) = results[1] else {
            throw RedisError(address, "resetting the shared state", "no reset count in the reply")
        }
        return epoch
    }

    /// After the batch's XADD in the same transaction: refuses it (takes it out again) when the cluster was reset
    /// since the epoch it was read in, else counts its entries, drops the oldest batches while the count exceeds
    /// the capacity, and sets the mark; so a reader never sees the batch without the mark or the count. The entries
    /// go to XADD, not through the script: Redis copies every script argument into Lua, which for a batch of a few
    /// hundred entries costs twenty times the XADD. Each batch's entry count is kept in a list, so trimming never
    /// reads a batch back (the oldest go with one XTRIM).
    private static let appendScript = """
        if tonumber(redis.call('GET', KEYS[4]) or '0') ~= tonumber(ARGV[5]) then
            local newest = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
            if newest[1] then redis.call('XDEL', KEYS[1], newest[1][1]) end
            return -1
        end
        redis.call('RPUSH', KEYS[5], ARGV[4])
        local total = redis.call('INCRBY', KEYS[2], tonumber(ARGV[4]))
        local cap = tonumber(ARGV[1])
        local dropped = 0
        while total > cap do
            local head = redis.call('LPOP', KEYS[5])
            if not head then break end
            total = redis.call('DECRBY', KEYS[2], tonumber(string.match(head, '(%d+)$')) or 0)
            dropped = dropped + 1
        end
        if dropped > 0 then
            redis.call('XTRIM', KEYS[1], 'MAXLEN', math.max(redis.call('XLEN', KEYS[1]) - dropped, 0))
        end
        redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
        return total
        """

    public func appendJournal(_ batch: SharedJournalBatch, newestLocalId: Int64, incarnation: String, epoch: Int64,
                              capacity: Int) throws -> Bool {
        let add: [[UInt8]] = Self.args(["XADD", names.journal, "*", "replica", batch.replica, "count", String(batch.count),
                                        "format", batch.format, "entries"])
            + [batch.entries, Array("aside".utf8), batch.aside]
        let account = Self.args(["EVAL", Self.appendScript, "5", names.journal, names.journalCount, names.journalMarks,
                                 names.epoch, names.journalCounts, String(max(capacity, 1)), incarnation,
                                 String(newestLocalId), String(batch.count), String(epoch)])
        // Not retried: after a lost reply the caller asks `journalMark` where it got to instead of appending twice.
        let results = try transaction("appending to the cluster journal", bulk: true, retry: false, [add, account])
        return results.last != .integer(-1)
    }

    public func currentEpoch() throws -> Int64 {
        try checked("reading the reset count") { try $0.command(["GET", names.epoch]) }.text.flatMap { Int64($0) } ?? 0
    }

    public func journalMark(_ incarnation: String) throws -> Int64 {
        let reply = try checked("reading the cluster journal's mark") { try $0.command(["HGET", names.journalMarks, incarnation]) }
        return reply.text.flatMap { Int64($0) } ?? 0
    }

    public func journalBatches(from start: String, count: Int) throws -> [SharedJournalBatch] {
        let reply = try checked("reading the cluster journal") {
            try $0.command(["XRANGE", names.journal, start, "+", "COUNT", String(max(count, 1))])
        }
        return reply.items.compactMap { item -> SharedJournalBatch? in
            let parts = item.items
            guard parts.count == 2, let id = parts[0].text else { return nil }
            let fields = Dictionary(parts[1].pairs.compactMap { k, v in k.text.flatMap { name in v.bytes.map { (name, $0) } } },
                                    uniquingKeysWith: { a, _ in a })
            guard let replica = fields["replica"], let count = fields["count"].flatMap({ Int(String(decoding: $0, as: UTF8.self)) }),
                  let format = fields["format"], let entries = fields["entries"] else { return nil }
            return SharedJournalBatch(position: id, replica: String(decoding: replica, as: UTF8.self), count: count,
                                      format: String(decoding: format, as: UTF8.self), entries: entries,
                                      aside: fields["aside"] ?? [])
        }
    }

    public func journalCount() throws -> Int {
        try checked("counting the cluster journal") { try $0.command(["GET", names.journalCount]) }.text.flatMap { Int($0) } ?? 0
    }

    public func clearJournal() throws {
        // The marks stay: a copy whose reply was lost still finds where it got to.
        _ = try checked("clearing the cluster journal") {
            try $0.command(["DEL", names.journal, names.journalCount, names.journalCounts])
        }
    }

    public func heartbeat(_ json: [UInt8], ttlMillis: Int) throws {
        _ = try transaction("reporting this replica", bulk: true, [
            [Array("HSET".utf8), Array(names.replicas.utf8), Array(replicaId.utf8), json],
            Self.args(["SET", names.alive(replicaId), "1", "PX", String(max(ttlMillis, 1))]),
        ])
    }

    public func replicas() throws -> [SharedReplica] {
        let all = try checked("listing replicas") { try $0.command(["HGETALL", names.replicas]) }
        let reports = all.pairs.compactMap { k, v in k.text.flatMap { id in v.bytes.map { (id, $0) } } }
        guard !reports.isEmpty else { return [] }
        let alive = try run("listing replicas") { c in
            try c.pipeline(reports.map { Self.args(["EXISTS", names.alive($0.0)]) })
        }
        return zip(reports, alive).map { report, exists in
            SharedReplica(id: report.0, json: report.1, live: exists == .integer(1))
        }.sorted { $0.id < $1.id }
    }

    // MARK: Plumbing

    private func put<T: Encodable>(_ hash: String, _ kind: RedisKeys.Kind, _ id: String, _ value: T) throws {
        _ = try transaction("writing \(kind.rawValue) \(id)", [
            [Array("HSET".utf8), Array(hash.utf8), Array(id.utf8), try Self.json(value)], notice(kind, id),
        ])
    }

    private func delete(_ hash: String, _ kind: RedisKeys.Kind, _ id: String) throws {
        _ = try transaction("removing \(kind.rawValue) \(id)", [Self.args(["HDEL", hash, id]), notice(kind, id)])
    }

    private func fetch<T: Decodable>(_ hash: String, _ id: String) throws -> T? {
        guard let bytes = try checked("reading \(id)", { try $0.command(["HGET", hash, id]) }).bytes else { return nil }
        return try decode(bytes, T.self, what: hash)
    }

    /// Numbers the change and tells every replica, the writer too (each marks what it applied in the order
    /// the channel delivers): run inside the write's transaction, so the number, the notice and the value cannot part.
    private static let noticeScript = """
        local v = redis.call('INCR', KEYS[1])
        redis.call('PUBLISH', KEYS[2], ARGV[1] .. '\\n' .. ARGV[2] .. '\\n' .. ARGV[3] .. '\\n' .. v)
        return v
        """

    private func notice(_ kind: RedisKeys.Kind, _ id: String) -> [[UInt8]] {
        Self.args(["EVAL", Self.noticeScript, "2", names.version, names.changes, replicaId, kind.rawValue, id])
    }

    // MARK: Deliveries

    public func forwardDeliveries(_ batches: [(replica: String, items: [[UInt8]])], capacity: Int) throws {
        let commands: [[[UInt8]]] = batches.flatMap { batch in
            batch.items.map { item in
                [Array("XADD".utf8), Array(names.inbox(batch.replica).utf8), Array("MAXLEN".utf8), Array("~".utf8),
                 Array(String(max(capacity, 1)).utf8), Array("*".utf8), Array("push".utf8), item]
            }
        }
        guard !commands.isEmpty else { return }
        let replies = try run("handing pushes to their replicas", bulk: true, retry: false) { try $0.pipeline(commands) }
        for reply in replies { if case .error(let e) = reply { throw RedisError(address, "handing pushes to their replicas", e) } }
    }

    public func openDeliveryInbox() throws -> any SharedDeliveryInbox {
        try RedisDeliveryInbox(address: address, stream: names.inbox(replicaId))
    }

    // MARK: Sync

    /// The number of the latest change any replica made (0 before the first).
    public func currentVersion() throws -> Int64 {
        try checked("reading the change number") { try $0.command(["GET", names.version]) }.text.flatMap { Int64($0) } ?? 0
    }

    /// Raises the mark, never lowers it.
    private static let markScript = """
        local now = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
        if tonumber(ARGV[2]) > now then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
        return 0
        """

    /// Records that this replica has applied every change up to `version`.
    public func markApplied(_ version: Int64) throws {
        _ = try checked("recording the applied change") {
            try $0.command(["EVAL", Self.markScript, "1", names.applied, replicaId, String(version)])
        }
    }

    /// Per replica id, the latest change it applied.
    public func appliedVersions() throws -> [String: Int64] {
        let reply = try checked("reading the applied changes") { try $0.command(["HGETALL", names.applied]) }
        return Dictionary(reply.pairs.compactMap { k, v in k.text.flatMap { id in v.text.flatMap(Int64.init).map { (id, $0) } } },
                          uniquingKeysWith: { a, _ in a })
    }

    /// HSET in chunks, so an import of a million tokens is not one command of two million arguments.
    private func hashSets(_ hash: String, _ pairs: [(String, [UInt8])]) -> [[[UInt8]]] {
        stride(from: 0, to: pairs.count, by: 5_000).map { start in
            var command = [Array("HSET".utf8), Array(hash.utf8)]
            for (field, value) in pairs[start..<min(start + 5_000, pairs.count)] {
                command.append(Array(field.utf8))
                command.append(value)
            }
            return command
        }
    }

    /// `MULTI`, the commands, `EXEC`; returns the commands' replies. A Redis error in any of them throws.
    private func transaction(_ operation: String, bulk: Bool = false, retry: Bool = true,
                             _ commands: [[[UInt8]]]) throws -> [RedisReply] {
        let replies = try run(operation, bulk: bulk, retry: retry) { c in
            try c.pipeline([Self.args(["MULTI"])] + commands + [Self.args(["EXEC"])])
        }
        for reply in replies { if case .error(let e) = reply { throw RedisError(address, operation, e) } }
        guard case .array(let results) = replies.last else {
            throw RedisError(address, operation, "the transaction was not executed")
        }
        for result in results { if case .error(let e) = result { throw RedisError(address, operation, e) } }
        return results
    }

    /// Runs `body` on one of the two connections (see `RedisConnectionSlot`), naming `operation` in its error.
    private func run<R>(_ operation: String, bulk: Bool = false, retry: Bool = true,
                        _ body: (RedisConnection) throws -> sending R) throws -> sending R {
        do {
            return try (bulk ? self.bulk : connection).run(retry: retry, body)
        } catch let error as RedisError {
            throw RedisError(address, operation, error.detail)
        }
    }

    /// `run` for one command whose Redis error reply (LOADING after a restart, WRONGTYPE) is thrown, not read
    /// as "no value".
    private func checked(_ operation: String, bulk: Bool = false, retry: Bool = true,
                         _ body: (RedisConnection) throws -> sending RedisReply) throws -> RedisReply {
        let reply = try run(operation, bulk: bulk, retry: retry, body)
        if case .error(let e) = reply { throw RedisError(address, operation, e) }
        return reply
    }

    private func decodeHash<T: Decodable>(_ reply: RedisReply, _ type: T.Type, _ what: String) throws -> [T] {
        try reply.pairs.compactMap { _, value in try value.bytes.map { try decode($0, T.self, what: what) } }
    }

    private func decode<T: Decodable>(_ bytes: [UInt8], _ type: T.Type, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw RedisError(address, "reading \(what)", "a value is not what this emulator writes (\(error)); "
                             + "another program may use these keys — pick another database with /DB")
        }
    }

    private static func json<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try encoder.encode(value))
    }

    private static func args(_ strings: [String]) -> [[UInt8]] { strings.map { Array($0.utf8) } }
}
