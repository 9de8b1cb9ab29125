import APNsProtocol
import Foundation
import H2Transport
import StateStore
import Synchronization

/// Routes accepted pushes to the replica whose virtual device holds their token, so a device sees every push
/// to it however HAProxy balanced the sender's connections.
///
/// On the push path it only looks the token up, and only once some token is held by another replica's device, and
/// queues the push (no Redis); a thread hands the queue over every 2 ms, one round trip for all of it, except to
/// replicas no longer live (counted, not handed). Another thread reads this replica's inbox and gives each push to
/// the local observers (the devices), as if this replica had accepted it.
package final class ClusterDeliveryRouter: AcceptedPushObserver {
    /// Pushes (and their payload bytes) waiting to be handed over beyond these are dropped (and counted): memory
    /// stays bounded while Redis is unreachable.
    static let maxPending = 100_000
    static let maxPendingBytes = 64 << 20
    /// Each inbox keeps at most this many pushes.
    static let inboxCapacity = 100_000

    private let tokens: TokenRegistry
    private let store: any SharedStateStore
    private let observers: [any AcceptedPushObserver]
    private let replicaId: String

    private struct Pending {
        var pushes: [(owner: String, push: AcceptedPush, acceptedAt: Millis)] = []
        var bytes = 0
        var stopping = false
    }
    private let pending = Mutex(Pending())
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// What `GET /_emulator/cluster` shows.
    package struct Counters: Sendable, Codable, Equatable {
        /// Pushes handed to other replicas, those dropped (queue full, or Redis refused them), and those for
        /// devices of replicas no longer live.
        package var handedOver: UInt64
        package var dropped: UInt64
        package var undeliverable: UInt64
        /// Pushes other replicas handed here.
        package var received: UInt64
    }
    private let handedOver = Atomic<UInt64>(0)
    private let dropped = Atomic<UInt64>(0)
    private let undeliverable = Atomic<UInt64>(0)
    private let received = Atomic<UInt64>(0)

    package init(services: EmulatorServices, store: any SharedStateStore, observers: [any AcceptedPushObserver]) {
        self.tokens = services.tokens
        self.store = store
        self.observers = observers
        self.replicaId = store.replicaId
    }

    package var counters: Counters {
        Counters(handedOver: handedOver.load(ordering: .relaxed), dropped: dropped.load(ordering: .relaxed),
                 undeliverable: undeliverable.load(ordering: .relaxed), received: received.load(ordering: .relaxed))
    }

    package func pushAccepted(_ push: AcceptedPush, now: Millis, readAt: UInt64) {
        guard tokens.holdsOtherReplicasTokens, let owner = tokens.lookup(push.token)?.replica, owner != replicaId else {
            return
        }
        let queued = pending.withLock { p -> Bool in
            guard p.pushes.count < Self.maxPending, p.bytes + push.payload.count <= Self.maxPendingBytes else { return false }
            p.pushes.append((owner, push, now))
            p.bytes += push.payload.count
            return true
        }
        if !queued { dropped.add(1, ordering: .relaxed) }
    }

    /// Starts both threads (once). The inbox is opened on the reader's own thread, and again after a failure.
    package func start() {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let sender = Thread { [self] in
            var live = LiveReplicas()
            while !pending.withLock({ $0.stopping }) {
                handOver(&live)
                Thread.sleep(forTimeInterval: 0.002)
            }
            handOver(&live)
            finished.signal()
        }
        sender.name = "cluster-handover"
        sender.start()
        let reader = Thread { [self] in
            var inbox: (any SharedDeliveryInbox)?
            while !isStopping {
                do {
                    if inbox == nil { inbox = try store.openDeliveryInbox() }
                    let items = try inbox?.next(waitMillis: 200) ?? []
                    if !items.isEmpty { deliver(items) }
                } catch {
                    Thread.sleep(forTimeInterval: 0.2)
                }
            }
            inbox?.close()
            finished.signal()
        }
        reader.name = "cluster-inbox"
        reader.start()
    }

    /// Which replicas are live, read at most once a second by the sender.
    private struct LiveReplicas {
        var ids: Set<String> = []
        var readAt = ContinuousClock.now - .seconds(10)

        mutating func refresh(_ store: any SharedStateStore) {
            guard ContinuousClock.now - readAt >= .seconds(1), let replicas = try? store.replicas() else { return }
            ids = Set(replicas.filter(\.live).map(\.id))
            readAt = ContinuousClock.now
        }
    }

    /// Hands over what is queued, stops both threads and returns once the sender is done.
    package func stop() {
        guard started.load(ordering: .acquiring) else { return }
        let first = pending.withLock { p -> Bool in
            defer { p.stopping = true }
            return !p.stopping
        }
        if first {
            finished.wait()
            finished.wait()
        }
    }

    private var isStopping: Bool { pending.withLock { $0.stopping } }

    private func deliver(_ items: [[UInt8]]) {
        let decoder = JSONDecoder()
        let now = monotonicNanoseconds()
        for item in items {
            guard let handed = try? decoder.decode(HandedOverPush.self, from: Data(item)) else { continue }
            received.add(1, ordering: .relaxed)
            let push = handed.accepted
            for observer in observers { observer.pushAccepted(push, now: handed.acceptedAt, readAt: now) }
        }
    }

    private func handOver(_ live: inout LiveReplicas) {
        let batch = pending.withLock { p -> [(owner: String, push: AcceptedPush, acceptedAt: Millis)] in
            defer { p.pushes.removeAll(keepingCapacity: true); p.bytes = 0 }
            return p.pushes
        }
        guard !batch.isEmpty else { return }
        live.refresh(store)
        let encoder = JSONEncoder()
        var byOwner: [String: [[UInt8]]] = [:]
        for item in batch {
            // A lost replica's devices went with it: its inbox would only fill.
            guard live.ids.contains(item.owner) else {
                undeliverable.add(1, ordering: .relaxed)
                continue
            }
            guard let json = try? encoder.encode(HandedOverPush(item.push, acceptedAt: item.acceptedAt, from: replicaId))
            else { continue }
            byOwner[item.owner, default: []].append(Array(json))
        }
        do {
            let items = byOwner.values.reduce(0) { $0 + $1.count }
            try store.forwardDeliveries(byOwner.map { (replica: $0.key, items: $0.value) }, capacity: Self.inboxCapacity)
            handedOver.add(UInt64(items), ordering: .relaxed)
        } catch {
            // Not retried: some of the pipeline may have been applied, and a device must not get a push twice.
            dropped.add(UInt64(byOwner.values.reduce(0) { $0 + $1.count }), ordering: .relaxed)
            FileHandle.standardError.write(Data("apns-emulator: handing \(batch.count) pushes to their replicas: \(error)\n".utf8))
        }
    }
}
