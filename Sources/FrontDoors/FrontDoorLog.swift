import Synchronization

/// The last `capacity` front-door messages, newest last.
package final class FrontDoorLog: Sendable {
    package static let capacity = 1000
    private let entries = Mutex<[FrontDoorMessage]>([])

    package init() {}

    func append(_ message: FrontDoorMessage) {
        entries.withLock { e in
            if e.count >= Self.capacity { e.removeFirst(e.count - Self.capacity + 1) }
            e.append(message)
        }
    }

    package var all: [FrontDoorMessage] { entries.withLock { $0 } }
    package func reset() { entries.withLock { $0 = [] } }
}
