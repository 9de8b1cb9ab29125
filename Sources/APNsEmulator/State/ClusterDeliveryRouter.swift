import APNsProtocol
import Foundation
import H2Transport
import StateStore
import Synchronization

/// A push as one replica hands it to the replica whose virtual device holds its token.
struct HandedOverPush: Codable {
    var token: String
    var topic: String
    var bundleId: String
    var pushType: PushType
    var priority: Int
    var apnsId: String
    var expiration: Int64?
    var collapseId: String?
    var payload: Data
    var environment: APNsEnvironment
    var acceptedAt: Millis
    /// The replica that accepted it.
    var from: String

    init(_ push: AcceptedPush, acceptedAt: Millis, from: String) {
        token = push.token
        topic = push.topic
        bundleId = push.bundleId
        pushType = push.pushType
        priority = push.priority
        apnsId = push.apnsId
        expiration = push.expiration
        collapseId = push.collapseId
        payload = Data(push.payload)
        environment = push.environment
        self.acceptedAt = acceptedAt
        self.from = from
    }

    /// The push as the accepting replica's validator produced it (the payload scanned again here).
    var accepted: AcceptedPush {
        var summary = RequestSummary()
        summary.token = token
        summary.topic = topic
        summary.pushType = pushType
        summary.priority = priority
        summary.expiration = expiration
        summary.collapseId = collapseId
        summary.apnsId = apnsId
        let bytes = Array(payload)
        return AcceptedPush(summary: summary, bundleId: bundleId, pushType: pushType, priority: priority, apnsId: apnsId,
                            payload: bytes, payloadSummary: PayloadScanner.scan(bytes), environment: environment)
    }
}

/// Routes accepted pushes to the replica whose virtual device holds their token, so a device sees every push
/// to it however HAProxy balanced the sender's connections.
///
/// On the push path it only looks the token up and queues the push (no Redis); a thread hands the queue over
/// every few milliseconds, one round trip for all of it. Another thread reads this replica's inbox and gives
/// each push to the local observers (the devices), as if this replica had accepted it.
package final class ClusterDeliveryRouter: AcceptedPushObserver {
    /// Pushes waiting to be handed over beyond this are dropped (and counted): memory stays bounded while
    /// Redis is unreachable.
    static let maxPending = 100_000
    /// Each inbox keeps at most this many pushes.
    static let inboxCapacity = 100_000

    private let tokens: TokenRegistry
    private let store: any SharedStateStore
    private let observers: [any AcceptedPushObserver]
    private let replicaId: String

    private struct Pending {
        var pushes: [(owner: String, push: AcceptedPush, acceptedAt: Millis)] = []
        var stopping = false
    }
    private let pending = Mutex(Pending())
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    /// What `GET /_emulator/cluster` shows.
    package struct Counters: Sendable, Codable, Equatable {
        /// Pushes handed to other replicas, and those dropped (queue full, or Redis refused them).
        package var handedOver: UInt64
        package var dropped: UInt64
        /// Pushes other replicas handed here.
        package var received: UInt64
    }
    private let handedOver = Atomic<UInt64>(0)
    private let dropped = Atomic<UInt64>(0)
    private let received = Atomic<UInt64>(0)

    package init(services: EmulatorServices, store: any SharedStateStore, observers: [any AcceptedPushObserver]) {
        self.tokens = services.tokens
        self.store = store
        self.observers = observers
        self.replicaId = store.replicaId
    }

    package var counters: Counters {
        Counters(handedOver: handedOver.load(ordering: .relaxed), dropped: dropped.load(ordering: .relaxed),
                 received: received.load(ordering: .relaxed))
    }

    package func pushAccepted(_ push: AcceptedPush, now: Millis, readAt: UInt64) {
        guard let owner = tokens.lookup(push.token)?.replica, owner != replicaId else { return }
        let queued = pending.withLock { p -> Bool in
            guard p.pushes.count < Self.maxPending else { return false }
            p.pushes.append((owner, push, now))
            return true
        }
        if !queued { dropped.add(1, ordering: .relaxed) }
    }

    /// Opens the inbox and starts both threads (once).
    package func start() throws {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let inbox = try store.openDeliveryInbox()
        let sender = Thread { [self] in
            while !pending.withLock({ $0.stopping }) {
                handOver()
                Thread.sleep(forTimeInterval: 0.002)
            }
            handOver()
            finished.signal()
        }
        sender.name = "cluster-handover"
        sender.start()
        // The inbox is not Sendable: it is created here and then used by the reader thread alone.
        let reader = InboxReader(inbox: inbox, router: self)
        let thread = Thread { reader.run() }
        thread.name = "cluster-inbox"
        thread.start()
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

    fileprivate var isStopping: Bool { pending.withLock { $0.stopping } }

    fileprivate func readerFinished() { finished.signal() }

    fileprivate func deliver(_ items: [[UInt8]]) {
        let decoder = JSONDecoder()
        let now = monotonicNanoseconds()
        for item in items {
            guard let handed = try? decoder.decode(HandedOverPush.self, from: Data(item)) else { continue }
            received.add(1, ordering: .relaxed)
            let push = handed.accepted
            for observer in observers { observer.pushAccepted(push, now: handed.acceptedAt, readAt: now) }
        }
    }

    private func handOver() {
        let batch = pending.withLock { p -> [(owner: String, push: AcceptedPush, acceptedAt: Millis)] in
            defer { p.pushes.removeAll(keepingCapacity: true) }
            return p.pushes
        }
        guard !batch.isEmpty else { return }
        let encoder = JSONEncoder()
        var byOwner: [String: [[UInt8]]] = [:]
        for item in batch {
            guard let json = try? encoder.encode(HandedOverPush(item.push, acceptedAt: item.acceptedAt, from: replicaId))
            else { continue }
            byOwner[item.owner, default: []].append(Array(json))
        }
        do {
            try store.forwardDeliveries(byOwner.map { (replica: $0.key, items: $0.value) }, capacity: Self.inboxCapacity)
            handedOver.add(UInt64(batch.count), ordering: .relaxed)
        } catch {
            // Not retried: some of the pipeline may have been applied, and a device must not get a push twice.
            dropped.add(UInt64(batch.count), ordering: .relaxed)
            FileHandle.standardError.write(Data("apns-emulator: handing \(batch.count) pushes to their replicas: \(error)\n".utf8))
        }
    }
}

/// The reader thread's state: the inbox (not `Sendable`) never leaves this object, which only that thread runs.
private final class InboxReader: @unchecked Sendable {
    // @unchecked: `inbox` is touched only by `run()`, and `run()` is called once, by the one thread created for it.
    private let inbox: any SharedDeliveryInbox
    private let router: ClusterDeliveryRouter

    init(inbox: any SharedDeliveryInbox, router: ClusterDeliveryRouter) {
        self.inbox = inbox
        self.router = router
    }

    func run() {
        while !router.isStopping {
            do {
                let items = try inbox.next(waitMillis: 200)
                if !items.isEmpty { router.deliver(items) }
            } catch {
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        inbox.close()
        router.readerFinished()
    }
}
