/// A min-heap of deadlines, owned by one event loop.
///
/// Tasks live in a table keyed by id and the heap holds only (deadline, id): cancelling removes the task
/// at once, so a cancelled timer never keeps its captures (a closed connection) alive until its deadline.
/// That lets timer closures capture their owner strongly instead of weakly: a weak reference would give
/// the owner a side table and send every retain/release of it down Swift's slow path, which on a
/// connection object means every request.
struct TimerQueue {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private var heap: [Entry] = []
    private var tasks: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    /// The earliest deadline that may still fire (cancelled entries are dropped lazily here).
    var earliestDeadline: UInt64? {
        mutating get {
            while let top = heap.first, tasks[top.id] == nil { _ = removeTop() }
            return heap.first?.deadline
        }
    }

    mutating func schedule(at deadline: UInt64, _ task: @escaping () -> Void) -> UInt64 {
        let id = nextID
        nextID &+= 1
        tasks[id] = task
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    mutating func cancel(_ id: UInt64) {
        tasks[id] = nil
    }

    /// Removes and returns the tasks due at `now`, earliest first.
    mutating func popDue(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let top = heap.first, top.deadline <= now {
            let entry = removeTop()
            if let task = tasks.removeValue(forKey: entry.id) { due.append(task) }
        }
        return due
    }

    private mutating func removeTop() -> Entry {
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return top
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        heap[a].deadline < heap[b].deadline || (heap[a].deadline == heap[b].deadline && heap[a].id < heap[b].id)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            if !less(child, parent) { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && less(left, smallest) { smallest = left }
            if right < heap.count && less(right, smallest) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
