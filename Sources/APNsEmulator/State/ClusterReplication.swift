import APNsProtocol
import Foundation
import StateStore
import Synchronization

/// The replica's side of the shared store that is not a registry write: it copies the journal into the
/// cluster journal and reports the replica, on a thread of its own, never on the push path.
///
/// The journal is copied as the journal stores it (no text built, nothing encoded per entry), in batches of at
/// most 1,000 entries every 50 ms (at once again while a batch was full). Each batch and the replica's mark go
/// in one step, so after a failure it resumes at the mark and copies nothing twice; while it cannot tell
/// whether a failed batch went in, it copies nothing. A batch read before a cluster reset is refused after it.
/// A clean stop copies what is left first. With `gate` (`--cluster-journal durable`) accepted answers wait for
/// their copy and the thread copies as soon as any wait, so a replica killed outright loses no push a client saw
/// accepted; without it, one killed outright loses the copies of what it answered in the last interval.
final class ClusterReplication: Sendable {
    static let heartbeatMillis = 1_000
    static let heartbeatTTLMillis = 3_000
    static let batchLimit = 1_000
    /// The first pause when answers are held and there was nothing to copy; doubles up to 50 ms.
    static let minIdlePause = 0.000_2

    let store: any SharedStateStore
    let incarnation = UUID().uuidString.lowercased()
    private let journal: Journal
    private let metrics: EmulatorMetrics
    private let clock: any EmulatorClock
    private let capacity: Int
    private let startedAt: Millis
    /// Accepted answers waiting for their copy, when answers wait (`--cluster-journal durable`).
    let gate: JournalCopyGate?

    /// Channel changes waiting to be copied beyond this are dropped (and said so): memory stays bounded while
    /// Redis is unreachable.
    static let maxPendingChannels = 10_000

    private static let noAside = Array("[]".utf8)

    /// The layout of copied entries: this build's journal layout (a reader of another build skips them).
    static let journalFormat = "apns-emulator-journal/\(EmulatorVersion.current)"

    private struct State {
        /// Channels created (info) or deleted (nil) here and not yet in the store, in order.
        var channels: [(String, ChannelInfo?)] = []
        var forwarded: Int64 = 0
        /// A batch failed and its mark could not be read: copy nothing until it can.
        var unsure = false
        /// Resets the cluster has seen, as this replica last learnt (what batches are tagged with).
        var epoch: Int64 = 0
        /// Resets this replica has applied (forgotten its state for); the copier may learn of one first.
        var appliedEpoch: Int64 = 0
        /// Entries the local journal dropped (capacity, memory) before they could be copied.
        var missed: Int64 = 0
        /// The layer above's virtual devices: their count and ids (set once the devices exist).
        var devices: (@Sendable () -> (count: Int, ids: [String]))?
        /// The replicas and the cluster journal's size as the last beat read them (for `/metrics`).
        var cluster: (replicas: [SharedReplica], journalCount: Int)?
        /// Applies a reset the store counts and this replica has not applied (`onMissedReset`).
        var missedReset: (@Sendable (Int64) -> Void)?
        var stopping = false
        var endpoints: EmulatorEndpoints?
        var controlURL: String?
        var lastError: String?
    }
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    init(store: any SharedStateStore, journal: Journal, metrics: EmulatorMetrics, clock: any EmulatorClock, capacity: Int,
         holdsAnswers: Bool) {
        self.store = store
        self.journal = journal
        self.metrics = metrics
        self.clock = clock
        self.capacity = capacity
        self.startedAt = clock.now()
        // Entries already in the journal (none at start) are not this incarnation's to copy.
        let newest = journal.newestId
        state.withLock { $0.forwarded = newest }
        gate = holdsAnswers ? JournalCopyGate(copiedThrough: newest) : nil
    }

    /// Starts the thread (once); `endpoints` and `controlURL` go into every report.
    func start(endpoints: EmulatorEndpoints?, controlURL: String?) {
        state.withLock { $0.endpoints = endpoints; $0.controlURL = controlURL }
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let thread = Thread { [self] in
            var lastBeat = ContinuousClock.now - .seconds(10)
            var idlePause = Self.minIdlePause
            while !state.withLock({ $0.stopping }) {
                // Read before the copy: an answer held after it may be for an entry the copy did not take.
                let seen = gate?.holdCount ?? 0
                copyChannels()
                let copied = forward()
                if ContinuousClock.now - lastBeat >= .milliseconds(Self.heartbeatMillis) {
                    beat("running")
                    lastBeat = ContinuousClock.now
                }
                if copied == Self.batchLimit { continue }
                if let gate {
                    // Group commit: the next batch is what was held during this one's round trip, at once if any was.
                    if copied == 0 && gate.holding {
                        // Held answers the last copy passed whose loops have not sent them yet, or a store that
                        // refuses: wake their loops again and back off rather than spin (a new answer wakes it).
                        gate.advance(to: forwardedId)
                        gate.waitForHold(after: seen, timeout: idlePause)
                        idlePause = min(idlePause * 2, 0.05)
                    } else {
                        idlePause = Self.minIdlePause
                        gate.waitForHold(after: seen, timeout: 0.05)
                    }
                } else {
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            copyChannels()
            while forward() == Self.batchLimit {}
            beat("stopped")
            finished.signal()
        }
        thread.name = "cluster-replication"
        thread.start()
    }

    /// Copies what is left of the journal, says it stopped, and returns (the feed is the store's to stop).
    func stop() {
        guard started.load(ordering: .acquiring) else { return }
        let first = state.withLock { s -> Bool in
            defer { s.stopping = true }
            return !s.stopping
        }
        if first { finished.wait() }
    }

    var lastError: String? { state.withLock { $0.lastError } }
    var forwardedId: Int64 { state.withLock { $0.forwarded } }
    var missedCount: Int64 { state.withLock { $0.missed } }

    /// Applies the cluster's reset number `epoch` here, for the first of the paths that learn of it (this
    /// replica's own reset, the feed, a reload, the copier) only: `forget` clears this replica's state and returns
    /// the newest journal id it cleared. False when it was applied already. Batches keep the old count until the
    /// clear is done, so no entry from before the reset is tagged with the new one.
    func applyReset(_ epoch: Int64, forget: () -> Int64) -> Bool {
        let claimed = state.withLock { s -> Bool in
            guard epoch > s.appliedEpoch else { return false }
            s.appliedEpoch = epoch
            return true
        }
        if claimed { resetHappened(epoch: epoch, clearedThrough: forget()) }
        return claimed
    }

    /// The cluster was reset (here or elsewhere) and this replica's journal cleared through `cleared`: what it
    /// held before is not to be copied, and batches are tagged with the new count.
    func resetHappened(epoch: Int64, clearedThrough cleared: Int64) {
        state.withLock { s in
            s.epoch = max(s.epoch, epoch)
            s.appliedEpoch = max(s.appliedEpoch, epoch)
            s.forwarded = max(s.forwarded, cleared)
        }
        // Answers held for entries the reset cleared go out: those entries will never be copied.
        gate?.advance(to: cleared)
    }

    /// The store counts fewer resets than this replica has seen: it lost its data (a Redis restarted without
    /// persistence, a flush). Its count is taken as it is, so batches are accepted and later resets are applied.
    func storeEpochFell(to epoch: Int64) {
        state.withLock { s in
            s.epoch = min(s.epoch, epoch)
            s.appliedEpoch = min(s.appliedEpoch, epoch)
        }
    }

    /// The resets this replica has applied.
    var appliedEpoch: Int64 { state.withLock { $0.appliedEpoch } }

    /// Applies a reset the copier learnt of before this replica did (set by the services, which forget and call
    /// `applyReset`).
    func onMissedReset(_ body: @escaping @Sendable (Int64) -> Void) {
        state.withLock { $0.missedReset = body }
    }

    /// Queues a channel this replica created or deleted, for the thread to copy (never blocks).
    func copyChannel(_ id: String, _ info: ChannelInfo?) {
        let kept = state.withLock { s -> Bool in
            guard s.channels.count < Self.maxPendingChannels else { return false }
            s.channels.append((id, info))
            return true
        }
        if !kept {
            FileHandle.standardError.write(Data("apns-emulator: channel \(id) not copied to the shared store (queue full)\n".utf8))
        }
    }

    private func copyChannels() {
        let pending = state.withLock { s -> [(String, ChannelInfo?)] in
            defer { s.channels.removeAll() }
            return s.channels
        }
        let encoder = JSONEncoder()
        for (i, (id, info)) in pending.enumerated() {
            do {
                try store.setChannel(id, try info.map { Array(try encoder.encode($0)) })
            } catch {
                // Kept, in order, for the next turn: a channel must not exist on one replica only.
                state.withLock { $0.channels.insert(contentsOf: pending[i...], at: 0) }
                state.withLock { $0.lastError = "\(error)" }
                return
            }
        }
    }

    /// One batch; the entries it copied (`batchLimit`: more may be waiting).
    @discardableResult
    private func forward() -> Int {
        let (after, unsure, epoch) = state.withLock { ($0.forwarded, $0.unsure, $0.epoch) }
        if unsure {
            guard let mark = try? store.journalMark(incarnation) else { return 0 }
            let forwarded = state.withLock { s -> Int64 in
                s.forwarded = max(s.forwarded, mark)
                s.unsure = false
                return s.forwarded
            }
            gate?.advance(to: forwarded)
            return Self.batchLimit
        }
        // Read before the copy: an entry appended after it is above `newest`, so when the copy finds nothing, the
        // entries up to `newest` were cleared from the local journal before their copy, not yet to come.
        let newest = journal.newestId
        guard let copy = journal.copy(after: after, count: Self.batchLimit) else {
            // None of them will come: their answers go out.
            if newest > after {
                state.withLock { s in
                    s.missed += newest - max(after, s.forwarded)
                    s.forwarded = max(s.forwarded, newest)
                }
                gate?.advance(to: newest)
            }
            return 0
        }
        let aside = copy.aside.isEmpty ? Self.noAside : (try? JSONEncoder().encode(copy.aside)).map(Array.init) ?? Self.noAside
        let batch = SharedJournalBatch(replica: store.replicaId, count: copy.count, format: Self.journalFormat,
                                       entries: copy.bytes, aside: aside)
        let skipped = copy.newestId - after - Int64(copy.count)
        do {
            let added = try store.appendJournal(batch, newestLocalId: copy.newestId, incarnation: incarnation,
                                                epoch: epoch, capacity: capacity)
            guard added else {
                refused(epoch: epoch)
                return 0
            }
            state.withLock { s in
                s.forwarded = max(s.forwarded, copy.newestId)
                s.missed += max(0, skipped)
                s.lastError = nil
            }
            gate?.advance(to: copy.newestId)
            return copy.count
        } catch {
            // The batch may have gone in with its reply lost: resume at the mark it wrote, or wait until it can be read.
            let mark = try? store.journalMark(incarnation)
            let forwarded = state.withLock { s -> Int64? in
                if let mark { s.forwarded = max(s.forwarded, mark) } else { s.unsure = true }
                s.lastError = "\(error)"
                return mark == nil ? nil : s.forwarded
            }
            if let forwarded { gate?.advance(to: forwarded) }
            Thread.sleep(forTimeInterval: 0.2)
            return 0
        }
    }

    /// A batch tagged `epoch` was refused: the store counts another number of resets. One applied meanwhile (the
    /// feed's notice, this replica's own) moved the copy on: the next batch is read again. Otherwise the store is
    /// ahead, a reset whose notice is late or lost, and is applied here now (its entries are what it clears, so
    /// answers held for them go out); or behind, having lost its data, and its count is taken.
    private func refused(epoch: Int64) {
        guard let current = try? store.currentEpoch() else { return }
        let (unchanged, missedReset) = state.withLock { ($0.epoch == epoch, $0.missedReset) }
        guard unchanged else { return }
        if current > epoch {
            missedReset?(current)
        } else if current < epoch {
            storeEpochFell(to: current)
        }
    }

    /// Where the reports find this replica's devices.
    func reportDevices(_ devices: @escaping @Sendable () -> (count: Int, ids: [String])) {
        state.withLock { $0.devices = devices }
    }

    private func beat(_ status: String) {
        let snapshot = metrics.snapshot()
        var report = ReplicaReport(
            id: store.replicaId, incarnation: incarnation, state: status, startedAt: startedAt, lastSeenAt: clock.now(),
            endpoints: state.withLock { $0.endpoints }, controlURL: state.withLock { $0.controlURL },
            answered: snapshot.answered, accepted: snapshot.succeeded,
            journalNewestId: journal.newestId, journalForwardedId: forwardedId)
        if let devices = state.withLock({ $0.devices })?() {
            report.devices = devices.count
            report.deviceIds = Array(devices.ids.sorted().prefix(ReplicaReport.maxDeviceIds))
        }
        guard let json = try? JSONEncoder().encode(report) else { return }
        // A stopped replica's liveness lapses at once; a running one's outlives a missed beat or two.
        try? store.heartbeat(Array(json), ttlMillis: status == "stopped" ? 1 : Self.heartbeatTTLMillis)
        if let replicas = try? store.replicas(), let count = try? store.journalCount() {
            state.withLock { $0.cluster = (replicas, count) }
        }
    }

    /// The cluster as the last beat (at most a second or so ago) read it: what a scrape shows without waiting on
    /// Redis, which may be slow or gone.
    var lastCluster: (replicas: [SharedReplica], journalCount: Int)? { state.withLock { $0.cluster } }
}
