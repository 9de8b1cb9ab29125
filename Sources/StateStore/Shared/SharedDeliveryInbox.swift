/// Pushes other replicas accepted for this replica's virtual devices, in the order they were handed over.
/// Not thread-safe: one reader thread owns it.
public protocol SharedDeliveryInbox: AnyObject {
    /// Waits up to `waitMillis` for pushes handed over since the last call (since opening, on the first) and
    /// returns them; reconnects after a failure without losing its place.
    func next(waitMillis: Int) throws -> [[UInt8]]
    func close()
}
