import Synchronization

/// One Redis connection that callers on any thread take turns on, replaced when a call finds it broken.
///
/// A call that finds the connection broken (the server restarted, an idle connection was dropped) is run once
/// more on a new one when `retry` allows: control writes are idempotent (a value set twice, a notice heard
/// twice); the journal's append, the hand-over and bulk replacements pass `retry: false`.
final class RedisConnectionSlot: Sendable {
    private let address: RedisAddress
    /// The connection lives inside the lock and is used only within `withLock`.
    private let slot: Mutex<RedisConnection?>

    init(_ address: RedisAddress, connectNow: Bool) throws {
        self.address = address
        slot = Mutex(connectNow ? try RedisConnection(address, timeoutSeconds: 5) : nil)
    }

    func run<R>(retry: Bool, _ body: (RedisConnection) throws -> sending R) throws -> sending R {
        try slot.withLock { (slot: inout RedisConnection?) throws -> sending R in
            if slot?.isOpen != true { slot = try RedisConnection(address, timeoutSeconds: 5) }
            guard let open = slot else { throw RedisError(address, "sending a command", "not connected") }
            do {
                return try body(open)
            } catch is RedisError where retry && !open.isOpen {
                let fresh = try RedisConnection(address, timeoutSeconds: 5)
                slot = fresh
                return try body(fresh)
            }
        }
    }

    func close() { slot.withLock { $0?.close() } }
}
