import Synchronization

/// A harness's fixture, made once on first use: the certificates folder it needs is known only then, and every
/// input of a run shares it, as a long-running emulator keeps its registries.
final class OnFirstUse<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)

    func get(_ make: () -> Value) -> Value {
        value.withLock { stored in
            if let stored { return stored }
            let made = make()
            stored = made
            return made
        }
    }
}
