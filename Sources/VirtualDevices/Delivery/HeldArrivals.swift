import APNsProtocol

/// Accepted pushes waiting out their delivery latency: a binary min-heap on arrival time (then acceptance
/// order), so the engine's timer always knows the next one due.
struct HeldArrivals: Sendable {
    private var heap: [DeliveryArrival] = []

    /// When the next held push is due.
    var nextDue: Millis? { heap.first?.arrivesAt }

    mutating func insert(_ arrival: DeliveryArrival) {
        heap.append(arrival)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    /// Removes and returns every push due by `now`, earliest first.
    mutating func popDue(by now: Millis, into out: inout [DeliveryArrival]) {
        while let first = heap.first, first.arrivesAt <= now {
            out.append(first)
            let last = heap.removeLast()
            guard !heap.isEmpty else { break }
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1, right = left + 1
                var least = parent
                if left < heap.count, Self.before(heap[left], heap[least]) { least = left }
                if right < heap.count, Self.before(heap[right], heap[least]) { least = right }
                if least == parent { break }
                heap.swapAt(parent, least)
                parent = least
            }
        }
    }

    private static func before(_ a: DeliveryArrival, _ b: DeliveryArrival) -> Bool {
        a.arrivesAt != b.arrivesAt ? a.arrivesAt < b.arrivesAt : a.seq < b.seq
    }
}
