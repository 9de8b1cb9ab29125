/// The lowest sequence number of an accepted push not yet recorded on its device: every push below it has
/// arrived. Pushes finish out of order once a delivery latency is drawn per push, so finished ones above
/// the mark wait in a window until the ones before them finish.
struct SettleWatermark: Sendable, Equatable {
    /// Every sequence number below this one has finished.
    private(set) var mark: UInt64 = 0
    /// `window[head + i]`: whether `mark + i` has finished (only while some push before it has not).
    private var window: [Bool] = []
    private var head = 0

    mutating func finish(_ seq: UInt64) {
        precondition(seq >= mark, "push \(seq) finished twice")
        if seq == mark, head == window.count {
            mark += 1
            return
        }
        let i = head + Int(seq - mark)
        if window.count <= i { window.append(contentsOf: repeatElement(false, count: i + 1 - window.count)) }
        precondition(!window[i], "push \(seq) finished twice")
        window[i] = true
        while head < window.count, window[head] {
            head += 1
            mark += 1
        }
        if head == window.count {
            window.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 {
            window.removeFirst(head)
            head = 0
        }
    }
}
