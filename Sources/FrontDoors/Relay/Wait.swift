import Dispatch
import Synchronization

/// One answer handed from an event loop to a thread that waits for it, at most so long.
final class Wait<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// The value, and whether the waiter gave up.
    private let state = Mutex<(value: Value?, abandoned: Bool)>((nil, false))

    /// False when the waiter has already given up (the value is not taken).
    @discardableResult
    func deliver(_ value: Value) -> Bool {
        let taken = state.withLock { s -> Bool in
            guard !s.abandoned else { return false }
            s.value = value
            return true
        }
        if taken { done.signal() }
        return taken
    }

    func value(within timeout: DispatchTimeInterval) -> Value? {
        if done.wait(timeout: .now() + timeout) == .success { return state.withLock { $0.value } }
        return state.withLock { s in
            s.abandoned = s.value == nil
            return s.value
        }
    }
}
