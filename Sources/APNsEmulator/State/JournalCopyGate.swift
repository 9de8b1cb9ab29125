import Dispatch
import H2Transport
import Synchronization

/// Accepted answers held until the cluster journal holds their entries (`--cluster-journal durable`): a client
/// that saw 200 can count on the push being in the cluster journal even if this replica is killed outright the
/// next instant. The copier commits in groups (one Redis round trip for every answer waiting), so holding costs
/// latency, not a store call per push.
///
/// Answers wait on the slot of their event loop, in journal order (ids only rise on one loop); once a copy
/// passes them, the copier wakes each loop once and the loop sends its own answers.
final class JournalCopyGate: Sendable {
    /// Event loops get a slot each up to this many; beyond it loops share slots (their answers still go out on
    /// their own loop, see `release`).
    static let slotCount = 64

    private struct Waiting: Sendable {
        let id: Int64
        let loop: EventLoop
        let send: @Sendable () -> Void
    }

    private struct Slot: Sendable {
        var waiting: [Waiting] = []
        /// Waiting before this index were sent (compacted as the slot is drained).
        var head = 0
        /// The loop that drains the slot (the first that used it).
        var loop: EventLoop?
        /// A drain is already queued on `loop`.
        var drainQueued = false
        /// The copier's wake-up is queued for the end of the holding loop's tick.
        var wakeQueued = false
    }

    private final class SlotBox: Sendable {
        let slot = Mutex(Slot())
    }

    private let slots: [SlotBox] = (0..<JournalCopyGate.slotCount).map { _ in SlotBox() }
    /// The newest local journal id in the cluster journal (or past which nothing will be copied).
    private let copied = Atomic<Int64>(0)
    private let held = Atomic<Int>(0)
    private let work = DispatchSemaphore(value: 0)
    /// Answers ever held: the copier waits only when none came since it last looked.
    private let holds = Atomic<Int>(0)
    /// The copier is waiting in `waitForHold`: the tick that holds an answer wakes it.
    private let copierWaiting = Atomic<Bool>(false)
    /// Bit i: slot i has held an answer (never cleared), so `advance` looks at used slots only.
    private let usedSlots = Atomic<UInt64>(0)

    init(copiedThrough id: Int64) { copied.store(id, ordering: .releasing) }

    /// Answers waiting (the copier copies at once while any wait).
    var holding: Bool { held.load(ordering: .relaxed) > 0 }

    /// Sends `send` once entry `id` is copied (at once when it is already); on event loop `loop`, whose thread
    /// this is. A sleeping copier is woken once per loop tick, after the tick's reads, so a batch carries every
    /// answer the tick held (woken at the first, a copier sharing the CPU would take them one by one).
    func hold(_ id: Int64, loopIndex: Int, on loop: EventLoop, _ send: @escaping @Sendable () -> Void) {
        guard id > copied.load(ordering: .acquiring) else { return send() }
        let index = loopIndex & (Self.slotCount - 1)
        // Read first: once the bit is set, holds only load the shared word (the copier reads it too).
        let bit: UInt64 = 1 << UInt64(index)
        if usedSlots.load(ordering: .sequentiallyConsistent) & bit == 0 {
            usedSlots.bitwiseOr(bit, ordering: .sequentiallyConsistent)
        }
        let wake = slots[index].slot.withLock { s -> Bool in
            s.waiting.append(Waiting(id: id, loop: loop, send: send))
            if s.loop == nil { s.loop = loop }
            defer { s.wakeQueued = true }
            return !s.wakeQueued
        }
        held.wrappingAdd(1, ordering: .relaxed)
        holds.wrappingAdd(1, ordering: .sequentiallyConsistent)
        if wake { loop.execute { [self] in wakeCopier(index) } }
        // A copy that passed `id` between the check above and the append may have scanned the slot before it
        // held this answer: the lock orders the two, so reading `copied` again here cannot miss it.
        if copied.load(ordering: .sequentiallyConsistent) >= id { release(index, on: loop) }
    }

    /// The end of a tick that held answers: the copier, if it sleeps, copies them now.
    private func wakeCopier(_ index: Int) {
        slots[index].slot.withLock { $0.wakeQueued = false }
        if copierWaiting.exchange(false, ordering: .sequentiallyConsistent) { work.signal() }
    }

    /// Answers held so far (ever); the copier reads it before a copy to know whether any came after.
    var holdCount: Int { holds.load(ordering: .sequentiallyConsistent) }

    /// The copier: entries through `id` are in the cluster journal (or will never be copied); wakes every loop
    /// holding an answer it passed. Every slot ever used is looked at, under its lock, after `copied` moved: an
    /// answer held meanwhile is either seen here or sees the new `copied` in `hold`. (A slot whose bit this
    /// missed was marked after the load, and `hold` read or set the bit before appending and reading `copied`
    /// again, so that read comes after the move: all of them are sequentially consistent.)
    func advance(to id: Int64) {
        let through = copied.max(id, ordering: .sequentiallyConsistent).newValue
        var used = usedSlots.load(ordering: .sequentiallyConsistent)
        while used != 0 {
            let index = used.trailingZeroBitCount
            used &= used - 1
            let loop = slots[index].slot.withLock { s -> EventLoop? in
                guard !s.drainQueued, s.head < s.waiting.count, s.waiting[s.head].id <= through else { return nil }
                s.drainQueued = true
                return s.loop
            }
            if let loop { loop.execute { [self] in release(index, on: loop) } }
        }
    }

    /// The copier waits here, at most `timeout` seconds, unless an answer was held since `holdCount` was `seen`.
    func waitForHold(after seen: Int, timeout seconds: Double) {
        copierWaiting.store(true, ordering: .sequentiallyConsistent)
        // A hold after this store finds the copier waiting at its tick's end and signals; one before it is counted.
        if holds.load(ordering: .sequentiallyConsistent) == seen {
            _ = work.wait(timeout: .now() + .microseconds(Int(seconds * 1_000_000)))
        }
        copierWaiting.store(false, ordering: .sequentiallyConsistent)
    }

    /// Sends the slot's answers the copy has passed; runs on `current`'s thread.
    private func release(_ index: Int, on current: EventLoop) {
        let ready = slots[index].slot.withLock { s -> ArraySlice<Waiting> in
            // Read after clearing the flag, under the lock: an `advance` that saw the flag set and queued no drain
            // moved `copied` before it looked, so this read sees its value.
            s.drainQueued = false
            let through = copied.load(ordering: .acquiring)
            var end = s.head
            while end < s.waiting.count, s.waiting[end].id <= through { end += 1 }
            let ready = s.waiting[s.head..<end]
            s.head = end
            if s.head == s.waiting.count {
                s.waiting.removeAll(keepingCapacity: true)
                s.head = 0
            } else if s.head > 1_024, s.head * 2 > s.waiting.count {
                s.waiting.removeFirst(s.head)
                s.head = 0
            }
            return ready
        }
        guard !ready.isEmpty else { return }
        held.wrappingSubtract(ready.count, ordering: .relaxed)
        current.coalescingWrites {
            for waiting in ready {
                // Loops sharing a slot (more than `slotCount` of them) send their answers on their own thread.
                if waiting.loop === current {
                    waiting.send()
                } else {
                    waiting.loop.execute(waiting.send)
                }
            }
        }
    }
}
