import CShims
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One thread running an epoll loop: it owns every connection registered with it.
///
/// ### Overview
/// Connection state is confined to its loop's thread; nothing locks it. Work from other threads arrives
/// through `execute`, a `Mutex`-protected inbox plus an eventfd wakeup (nghttpd's `Worker`, NIO's
/// `SelectableEventLoop`). Timers live in a heap read once per tick.
///
/// ### Implementation
/// Edge-triggered epoll: a connection reads until EAGAIN or until its per-wakeup budget is spent, in
/// which case it asks to be resumed on the next tick (`resumeReadingNextTick`) so one busy peer cannot
/// starve the others. The loop also owns scratch buffers that connections borrow while they run:
/// only one connection runs at a time, so sharing them keeps idle connections small.
/// Fields marked `@exclusivity(unchecked)` skip Swift's dynamic exclusivity check: they are touched only on the
/// owning event loop, one call at a time, and no access to one overlaps another. See `ServerStream`.
public final class EventLoop: @unchecked Sendable {
    // @unchecked Sendable: every stored var below is touched only on the loop's thread (checked by
    // `preconditionInLoop`); `inbox` is a Mutex, `threadID`, `started` and `stopRequested` are Atomics, the fds
    // immutable.

    public let index: Int
    private let epfd: Int32
    private let wakeFD: Int32
    private let inbox = Mutex<[@Sendable () -> Void]>([])
    private let stopRequested = Atomic<Bool>(false)

    // Owned by the loop thread.
    @exclusivity(unchecked) private var registrations: ContiguousArray<Selectable?> = []
    @exclusivity(unchecked) private var timers = TimerQueue()
    @exclusivity(unchecked) private var resumeList: [ReadResumable] = []
    /// Connections with output held back while `coalescingWrites` runs (nil when it does not).
    @exclusivity(unchecked) private var heldFlushes: [FlushDeferrable]?
    /// The loop thread's pthread_t (0 until it runs), read by `inEventLoop` from any thread.
    private let threadID = Atomic<UInt>(0)
    /// Whether `start` ran (set by the group's thread, read by the one that joins). The thread itself is not kept:
    /// its closure holds this loop, and a running Thread keeps itself alive and drops the closure when it ends.
    private let started = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// 64 KiB of ciphertext read straight from a socket; borrowed by whichever connection is running.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Plaintext decrypted by TLS before nghttp2 consumes it.
    let plainBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 16)
    /// nghttp2 output coalesced into ~16 KiB TLS records (1 SSL_write per ~80 small responses).
    let coalesceBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
    /// Ciphertext produced by TLS for the running connection, written to its socket before it yields.
    @exclusivity(unchecked) var scratchOut: [UInt8] = []
    /// CLOCK_MONOTONIC when the loop last woke up or read from a socket (loop thread only): activity stamps
    /// for idle timeouts read this instead of the clock, and so do the requests found in that read, as the
    /// start of their latency (one clock read per read(2), not several per request).
    @exclusivity(unchecked) public private(set) var readAt: UInt64 = monotonicNanoseconds()
    /// CLOCK_REALTIME in milliseconds since the epoch at the same moment (loop thread only), for handlers that
    /// stamp requests with wall time.
    @exclusivity(unchecked) public private(set) var readAtWallMillis: Int64 = wallMillis()

    /// Restamps `readAt` and `readAtWallMillis`; connections call it for each read that returned data, so
    /// input read late in a long wakeup is not stamped with the wakeup's time.
    func noteRead() {
        readAt = monotonicNanoseconds()
        readAtWallMillis = wallMillis()
    }
    /// Builds nghttp2 name/value arrays for whichever connection is submitting headers.
    let headerEncoder = HeaderEncoder()
    /// `headerEncoder` borrowed, for the per-answer path (valid for the loop's life: `headerEncoder` holds it).
    let borrowedHeaderEncoder: Borrowed<HeaderEncoder>
    /// Request streams closed by this loop's server connections, for their next requests (loop thread only).
    @exclusivity(unchecked) var streamPool = ServerStreamPool()
    /// The allocator of this loop's nghttp2 sessions (loop thread only: nghttp2's allocator is not synchronised).
    let nghttp2Allocator = NGHTTP2Allocator()

    private let strict: Bool = {
        #if DEBUG
        return true
        #else
        return ProcessInfo.processInfo.environment["APNS_EMU_STRICT"] == "1"
        #endif
    }()

    init(index: Int) throws(IOError) {
        self.index = index
        borrowedHeaderEncoder = Borrowed(headerEncoder)
        let ep = CShims_epoll_create1(Int32(O_CLOEXEC))
        guard ep >= 0 else { throw IOError(errno: errno, function: "epoll_create1") }
        let wake = CShims_eventfd(0, CShims_EFD_NONBLOCK | CShims_EFD_CLOEXEC)
        guard wake >= 0 else {
            Glibc.close(ep)
            throw IOError(errno: errno, function: "eventfd")
        }
        epfd = ep
        wakeFD = wake
        _ = CShims_epoll_ctl(epfd, CShims_EPOLL_CTL_ADD, wakeFD, CShims_EPOLLIN, UInt64(wakeFD))
        scratchOut.reserveCapacity(64 * 1024)
    }

    deinit {
        Glibc.close(epfd)
        Glibc.close(wakeFD)
        readBuffer.deallocate()
        plainBuffer.deallocate()
        coalesceBuffer.deallocate()
    }

    /// Starts the loop's thread. Idempotent callers are not expected; the group calls it once.
    func start(name: String) {
        let t = Thread { [self] in
            self.threadID.store(UInt(pthread_self()), ordering: .releasing)
            self.run()
            self.finished.signal()
        }
        t.name = name
        t.stackSize = 1 << 20
        started.store(true, ordering: .releasing)
        t.start()
    }

    /// True when called on this loop's thread.
    public var inEventLoop: Bool {
        let id = threadID.load(ordering: .acquiring)
        return id != 0 && pthread_equal(pthread_t(id), pthread_self()) != 0
    }

    /// Traps when called off the loop in debug builds or with APNS_EMU_STRICT=1 (Go's `serveG.check()`).
    @inline(__always)
    func preconditionInLoop(_ file: StaticString = #fileID, _ line: UInt = #line) {
        if strict { precondition(inEventLoop, "not on event loop \(index)", file: file, line: line) }
    }

    /// Runs `task` on the loop's thread soon; safe from any thread.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        inbox.withLock { $0.append(task) }
        var one: UInt64 = 1
        _ = Glibc.write(wakeFD, &one, 8)
    }

    /// Schedules `task` on the loop after `delay`; loop thread only. Returns an id for `cancelTimer`.
    @discardableResult
    func scheduleTimer(after delay: Duration, _ task: @escaping () -> Void) -> UInt64 {
        preconditionInLoop()
        return timers.schedule(at: monotonicNanoseconds() &+ delay.nanosecondsClamped, task)
    }

    /// Schedules `task` after `delay` from any thread.
    public func schedule(after delay: Duration, _ task: @escaping @Sendable () -> Void) {
        if inEventLoop {
            scheduleTimer(after: delay, task)
        } else {
            execute { [self] in self.scheduleTimer(after: delay, task) }
        }
    }

    func cancelTimer(_ id: UInt64) {
        preconditionInLoop()
        timers.cancel(id)
    }

    /// Adds `fd` to the epoll set (edge-triggered, read + write + peer hang-up).
    func register(fd: Int32, _ selectable: Selectable, edgeTriggered: Bool = true) throws(IOError) {
        preconditionInLoop()
        let index = Int(fd)
        if registrations.count <= index {
            registrations.append(contentsOf: repeatElement(nil, count: index + 1 - registrations.count))
        }
        registrations[index] = selectable
        var mask = CShims_EPOLLIN | CShims_EPOLLOUT | CShims_EPOLLRDHUP
        if edgeTriggered { mask |= CShims_EPOLLET } else { mask = CShims_EPOLLIN }
        if CShims_epoll_ctl(epfd, CShims_EPOLL_CTL_ADD, fd, mask, UInt64(fd)) != 0 {
            registrations[index] = nil
            throw IOError(errno: errno, function: "epoll_ctl(ADD)")
        }
    }

    /// Removes `fd` from the epoll set; call before closing it.
    func deregister(fd: Int32) {
        preconditionInLoop()
        _ = CShims_epoll_ctl(epfd, CShims_EPOLL_CTL_DEL, fd, 0, 0)
        if Int(fd) < registrations.count { registrations[Int(fd)] = nil }
    }

    /// Asks the loop to call `resumeReading` after this tick's other events (fairness, see Overview).
    func resumeReadingNextTick(_ connection: ReadResumable) {
        resumeList.append(connection)
    }

    /// Runs `body` on this loop's thread and sends what it produced once per connection when it ends: answers
    /// sent together from outside a read (released by another thread, say) go out in one TLS write each
    /// connection, as a read's answers do, instead of one write apiece.
    public func coalescingWrites(_ body: () -> Void) {
        preconditionInLoop()
        guard heldFlushes == nil else { return body() }
        heldFlushes = []
        body()
        let held = heldFlushes ?? []
        heldFlushes = nil
        for connection in held { connection.flushDeferred() }
    }

    /// Holds `connection`'s flush for the running `coalescingWrites`; false when none runs.
    func holdFlush(_ connection: FlushDeferrable) -> Bool {
        guard heldFlushes != nil else { return false }
        heldFlushes!.append(connection)
        return true
    }

    /// Whether `stop` was called: the loop is ending, and its last sweep closes what is registered.
    var isStopping: Bool { stopRequested.load(ordering: .acquiring) }

    /// Ends the loop after the tasks already queued; `join` waits for the thread.
    func stop() {
        stopRequested.store(true, ordering: .releasing)
        execute {}
    }

    func join() {
        guard started.load(ordering: .acquiring) else { return }
        finished.wait()
        finished.signal()
    }

    private func run() {
        let maxEvents = 256
        var events = [UInt32](repeating: 0, count: maxEvents)
        var datas = [UInt64](repeating: 0, count: maxEvents)
        while !stopRequested.load(ordering: .acquiring) {
            var timeout: Int32 = -1
            if !resumeList.isEmpty {
                timeout = 0
            } else if let deadline = timers.earliestDeadline {
                let now = monotonicNanoseconds()
                timeout = deadline <= now ? 0 : Int32(clamping: (deadline - now + 999_999) / 1_000_000)
            }
            let n = CShims_epoll_wait(epfd, &events, &datas, Int32(maxEvents), timeout)
            noteRead()
            if n < 0 && errno != EINTR {
                preconditionFailure("epoll_wait failed: \(errno)")
            }
            var i = 0
            while i < Int(max(n, 0)) {
                let fd = Int32(truncatingIfNeeded: datas[i])
                if fd == wakeFD {
                    var value: UInt64 = 0
                    _ = Glibc.read(wakeFD, &value, 8)
                } else if Int(fd) < registrations.count, let target = registrations[Int(fd)] {
                    target.handleEvent(events[i])
                }
                i += 1
            }
            runInbox()
            if !resumeList.isEmpty {
                let resuming = resumeList
                resumeList.removeAll(keepingCapacity: true)
                for r in resuming { r.resumeReading() }
            }
            if let deadline = timers.earliestDeadline, deadline <= monotonicNanoseconds() {
                for task in timers.popDue(now: monotonicNanoseconds()) { task() }
            }
        }
        runInbox()
        // Nothing may outlive its loop: close what is still registered so no fd leaks.
        for case let target? in registrations { target.closeForLoopShutdown() }
        registrations.removeAll()
    }

    private func runInbox() {
        let tasks = inbox.withLock { queue -> [@Sendable () -> Void] in
            if queue.isEmpty { return [] }
            let taken = queue
            queue.removeAll(keepingCapacity: true)
            return taken
        }
        for task in tasks { task() }
    }
}
