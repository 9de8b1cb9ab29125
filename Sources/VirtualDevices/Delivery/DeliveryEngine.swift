import APNsEmulator
import APNsProtocol
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import H2Transport
import Synchronization

/// Carries accepted pushes from the event loops to one shard's devices on a queue of its own: the provider
/// API answers once it has accepted a push, as APNs does, and the device model never runs inside a request.
///
/// An event loop appends to the inbox under a short lock and wakes the engine only when it was idle (while
/// pushes keep coming, the engine polls), so a busy sender's pushes reach the devices in batches, one take of
/// the shard's lock each. A delivery latency, when configured, holds each push until its drawn arrival time.
/// `settle` waits until every push accepted before the call has been recorded on its device.
final class DeliveryEngine: Sendable {
    private struct Inbox {
        var pending: [DeliveryArrival] = []
        /// A drain is queued or running: the next push need not wake the engine.
        var draining = false
        var nextSeq: UInt64 = 0
    }

    /// State the engine's queue works on; `discardPending` and `stop` reach it from the control thread, under the
    /// same lock.
    private struct Confined {
        var held = HeldArrivals()
        var watermark = SettleWatermark()
        var generator = SplitMix64()
        var timer: DispatchSourceTimer?
        /// Set by `stop`: no timer is armed again.
        var stopped = false
        /// The drained batch's array, kept for the next drain.
        var spare: [DeliveryArrival] = []
    }

    private struct Progress {
        var settledBelow: UInt64 = 0
        var waiters: [(target: UInt64, semaphore: DispatchSemaphore)] = []
        var histogram = DeliveryLatencyHistogram()
    }

    private let inbox = Mutex(Inbox())
    private let confined = Mutex(Confined())
    private let progress = Mutex(Progress())
    private let queue = DispatchQueue(label: "apns-emulator.delivery")
    /// Runs `drain` on `queue`; signalling it allocates nothing (a queued block would, once per wake-up).
    private let wake: WakeSource
    private let latency: ShapingSettings.Latency
    private let clock: any EmulatorClock
    /// Where batches go: the farm that owns the engine (weak: the farm holds the engine). A protocol reference
    /// rather than a stored closure, which would need a reabstraction thunk allocated on every read.
    private let sink = Mutex(WeakSink())
    /// Pushes handed to the devices under one take of the shard's lock at most.
    private static let batchLimit = 512
    /// The pause between batches while busy: the delivery latency a sustained load adds, at most.
    private static let busyPollMicros: UInt32 = 2000

    /// The farm's shard this engine feeds.
    let shard: Int

    init(shard: Int, latency: ShapingSettings.Latency, clock: any EmulatorClock) {
        self.shard = shard
        self.latency = latency
        self.clock = clock
        let source = DispatchSource.makeUserDataAddSource(queue: queue)
        wake = WakeSource(source: source)
        source.setEventHandler { [weak self] in self?.drain() }
        source.activate()
    }

    func connect(_ sink: any DeliverySink) {
        self.sink.withLock { $0.sink = sink }
    }

    /// On an event loop: queues an accepted push for its device.
    func enqueue(_ push: AcceptedPush, acceptedAt: Millis, readAt: UInt64) {
        let wake = inbox.withLock { i -> Bool in
            i.pending.append(DeliveryArrival(push: push, acceptedAt: acceptedAt, arrivesAt: acceptedAt,
                                             acceptedAtNanos: readAt, seq: i.nextSeq))
            i.nextSeq += 1
            if i.draining { return false }
            i.draining = true
            return true
        }
        if wake { self.wake.source.add(data: 1) }
    }

    /// How many pushes were accepted so far (the mark `settle(upTo:timeout:)` waits for).
    func acceptedSoFar() -> UInt64 { inbox.withLock { $0.nextSeq } }

    /// Waits until the first `target` pushes accepted have been recorded on their devices; false if `timeout`
    /// passed first.
    func settle(upTo target: UInt64, timeout: Duration) -> Bool {
        let semaphore = progress.withLock { p -> DispatchSemaphore? in
            guard p.settledBelow < target else { return nil }
            let s = DispatchSemaphore(value: 0)
            p.waiters.append((target, s))
            return s
        }
        guard let semaphore else { return true }
        let nanos = max(0, timeout.components.seconds) * 1_000_000_000 + max(0, timeout.components.attoseconds) / 1_000_000_000
        if semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: nanos))) == .success { return true }
        // Timed out, unless the engine signalled in between (it removes the waiters it signals).
        return progress.withLock { p in
            guard let i = p.waiters.firstIndex(where: { $0.semaphore === semaphore }) else { return true }
            p.waiters.remove(at: i)
            return false
        }
    }

    /// Pushes accepted and not yet recorded on their devices.
    var inFlight: UInt64 {
        let accepted = inbox.withLock { $0.nextSeq }
        return accepted - progress.withLock { $0.settledBelow }
    }

    var histogram: DeliveryLatencyHistogram { progress.withLock { $0.histogram } }

    /// Forgets the pushes not yet delivered (a reset): they count as settled, and reach no device. A batch the
    /// engine is handing over meanwhile still arrives (into whatever the farm holds by then). Not `queue.sync`:
    /// under a steady load the engine's drain does not return, and a reset must not wait for the load to stop.
    func discardPending() {
        let (waiting, held) = takeUndelivered(stopping: false)
        finish(waiting[...], arrivedAtNanos: nil)
        finish(held[...], arrivedAtNanos: nil)
    }

    /// Stops the engine once the listeners are closed: a drain in progress finishes, and what is still in the
    /// inbox or held for its latency is handed over now (stamped with its drawn arrival), so no accepted push
    /// goes without a fate and no settle waits on it.
    func stop() {
        wake.source.cancel()
        queue.sync {
            let (waiting, held) = takeUndelivered(stopping: true)
            if !waiting.isEmpty { hand(waiting) }
            if !held.isEmpty { hand(held) }
        }
    }

    /// Takes what no device has yet: the inbox, and the held pushes in arrival order (their timer disarmed, and
    /// never armed again once `stopping`).
    private func takeUndelivered(stopping: Bool) -> (waiting: [DeliveryArrival], held: [DeliveryArrival]) {
        let waiting = inbox.withLock { i -> [DeliveryArrival] in
            defer { i.pending.removeAll() }
            return i.pending
        }
        let held = confined.withLock { c -> [DeliveryArrival] in
            if stopping { c.stopped = true }
            c.timer?.cancel()
            c.timer = nil
            var all: [DeliveryArrival] = []
            c.held.popDue(by: .max, into: &all)
            return all
        }
        return (waiting, held)
    }

    // MARK: On the engine's queue

    private func drain() {
        while true {
            var batch = confined.withLock { c -> [DeliveryArrival] in
                var spare = [DeliveryArrival]()
                swap(&spare, &c.spare)
                return spare
            }
            inbox.withLock { i in
                swap(&batch, &i.pending)
                if batch.isEmpty { i.draining = false }
            }
            guard !batch.isEmpty else { return }
            if case .none = latency {
                hand(batch)
            } else {
                hold(batch)
            }
            batch.removeAll(keepingCapacity: true)
            confined.withLock { c in if batch.capacity > c.spare.capacity { c.spare = batch } }
            // While pushes keep coming, the engine polls instead of being woken for each read (a wake-up is a
            // futex call and a context switch, as dear as the delivery itself): the inbox stays marked draining, so
            // senders do not signal, and the next batch is whatever arrived during the pause.
            usleep(Self.busyPollMicros)
        }
    }

    /// Draws each push's delivery latency and keeps it until then; delivers those already due.
    private func hold(_ batch: [DeliveryArrival]) {
        let now = clock.now()
        var due: [DeliveryArrival] = []
        confined.withLock { c in
            for var arrival in batch {
                let ms = min(600_000, max(0, latency.sample(uniform01: c.generator.nextUniform(),
                                                              normal: c.generator.nextNormal())))
                arrival.arrivesAt = arrival.acceptedAt + Millis(ms.rounded())
                c.held.insert(arrival)
            }
            c.held.popDue(by: now, into: &due)
        }
        if !due.isEmpty { hand(due) }
        scheduleTimer()
    }

    private func releaseDue() {
        var due: [DeliveryArrival] = []
        let now = clock.now()
        confined.withLock { c in c.held.popDue(by: now, into: &due) }
        if !due.isEmpty { hand(due) }
        scheduleTimer()
    }

    private func scheduleTimer() {
        let now = clock.now()
        confined.withLock { c in
            guard !c.stopped, let next = c.held.nextDue else {
                c.timer?.cancel()
                c.timer = nil
                return
            }
            if c.timer == nil {
                let t = DispatchSource.makeTimerSource(queue: queue)
                t.setEventHandler { [weak self] in self?.releaseDue() }
                t.schedule(deadline: .now() + .milliseconds(Int(max(0, next - now))))
                t.resume()
                c.timer = t
            } else {
                c.timer!.schedule(deadline: .now() + .milliseconds(Int(max(0, next - now))))
            }
        }
    }

    private func hand(_ arrivals: [DeliveryArrival]) {
        let sink = self.sink.withLock { $0.sink }
        var start = arrivals.startIndex
        while start < arrivals.endIndex {
            let end = min(start + Self.batchLimit, arrivals.endIndex)
            sink?.deliver(arrivals[start..<end], shard: shard)
            finish(arrivals[start..<end], arrivedAtNanos: monotonicNanoseconds())
            start = end
        }
    }

    /// Moves the settle mark past `arrivals` and wakes the settles it satisfies; counts their delivery latency
    /// when they arrived (at `arrivedAtNanos`) rather than being discarded.
    private func finish(_ arrivals: ArraySlice<DeliveryArrival>, arrivedAtNanos: UInt64?) {
        guard !arrivals.isEmpty else { return }
        let mark = confined.withLock { c -> UInt64 in
            for a in arrivals { c.watermark.finish(a.seq) }
            return c.watermark.mark
        }
        progress.withLock { p in
            // `discardPending` (a control thread) and the engine's queue both get here: keep the higher mark.
            p.settledBelow = max(p.settledBelow, mark)
            if let arrivedAtNanos {
                for a in arrivals { p.histogram.record(micros: (arrivedAtNanos &- a.acceptedAtNanos) / 1000) }
            }
            guard !p.waiters.isEmpty else { return }
            p.waiters.removeAll { w in
                guard w.target <= mark else { return false }
                w.semaphore.signal()
                return true
            }
        }
    }
}

/// The engine's wake-up source, shared with the event loops that signal it.
///
/// `@unchecked Sendable`: libdispatch sources are made to be signalled from any thread (`add(data:)` is an
/// atomic add that coalesces, `cancel` is thread-safe), and the handler is set once before activation.
private struct WakeSource: @unchecked Sendable {
    let source: DispatchSourceUserDataAdd
}

/// What the engine hands its batches to (the device farm), under one lock per batch.
protocol DeliverySink: AnyObject, Sendable {
    func deliver(_ arrivals: ArraySlice<DeliveryArrival>, shard: Int)
}

private struct WeakSink {
    weak var sink: (any DeliverySink)?
}
