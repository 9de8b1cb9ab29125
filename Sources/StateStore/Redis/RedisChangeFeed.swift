import Foundation
import Synchronization

/// The other replicas' change notices, heard on a subscribed connection of its own, on a thread of its own.
///
/// Subscribed before `init` returns, so a change made while the caller loads the state is not missed;
/// notices that arrive before `start` wait in order. When the connection breaks, the feed reconnects with
/// backoff and reports `.everything`, since notices may have been lost meanwhile.
final class RedisChangeFeed: Sendable {
    private struct State {
        var handler: (@Sendable (SharedStateChange) -> Void)?
        var waiting: [SharedStateChange] = []
        var stopped = false
    }

    private let state = Mutex(State())
    private let address: RedisAddress
    private let channel: String
    private let replicaId: String
    private let finished = DispatchSemaphore(value: 0)

    init(address: RedisAddress, channel: String, replicaId: String) throws {
        self.address = address
        self.channel = channel
        self.replicaId = replicaId
        // The connection is made and used on the feed's thread only; `init` waits for its first SUBSCRIBE.
        let subscribed = DispatchSemaphore(value: 0)
        let firstError = Mutex<RedisError?>(nil)
        let thread = Thread { [self] in
            var connection: RedisConnection?
            do {
                connection = try self.subscribe()
            } catch let error as RedisError {
                firstError.withLock { $0 = error }
            } catch {}
            subscribed.signal()
            if let connection { self.listen(connection) }
            self.finished.signal()
        }
        thread.name = "redis-feed"
        thread.start()
        subscribed.wait()
        if let error = firstError.withLock({ $0 }) { throw error }
    }

    /// Delivers waiting and future notices to `handler`, on the feed's thread.
    func start(_ handler: @escaping @Sendable (SharedStateChange) -> Void) {
        let waiting = state.withLock { s -> [SharedStateChange] in
            s.handler = handler
            defer { s.waiting = [] }
            return s.waiting
        }
        for change in waiting { handler(change) }
    }

    /// Stops listening; returns once the thread has let go of its connection (within about 200 ms).
    func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        if first { finished.wait() }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private func subscribe() throws -> RedisConnection {
        let connection = try RedisConnection(address)
        try connection.send(["SUBSCRIBE", channel])
        // The subscription is in place once its confirmation arrives.
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            for reply in try connection.receive(timeoutMillis: 200) {
                if reply.items.first?.text == "subscribe" { return connection }
            }
        }
        throw RedisError(address, "subscribing to \(channel)", "no confirmation within 5 s")
    }

    private func listen(_ first: RedisConnection) {
        var connection: RedisConnection? = first
        var backoffMillis = 100
        while !isStopped {
            guard let c = connection else {
                Thread.sleep(forTimeInterval: Double(backoffMillis) / 1000)
                backoffMillis = min(backoffMillis * 2, 2_000)
                if let again = try? subscribe() {
                    connection = again
                    backoffMillis = 100
                    deliver(SharedStateChange(.everything, version: nil))
                }
                continue
            }
            do {
                for reply in try c.receive(timeoutMillis: 200) {
                    if let change = parse(reply) { deliver(change) }
                }
            } catch {
                c.close()
                connection = nil
            }
        }
        connection?.close()
    }

    /// A `message` push on the channel, as a change made by another replica (nil for ours and for others).
    private func parse(_ reply: RedisReply) -> SharedStateChange? {
        let parts = reply.items
        guard parts.count == 3, parts[0].text == "message", let text = parts[2].text else { return nil }
        // The id may hold anything but a newline; the version is always last.
        let fields = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 4, fields[0] != replicaId, let kind = RedisKeys.Kind(rawValue: fields[1]),
              let version = Int64(fields[3]) else { return nil }
        let id = fields[2]
        let change: SharedStateChange.Kind
        switch kind {
        case .key: change = .key(id)
        case .token: change = .token(id)
        case .fault: change = .fault(id)
        case .shaping: change = .shaping
        case .channel: change = .channel(id)
        case .clock: change = .clock
        case .all: change = .everything
        case .reset: change = .reset
        }
        return SharedStateChange(change, version: version)
    }

    private func deliver(_ change: SharedStateChange) {
        let handler = state.withLock { s -> (@Sendable (SharedStateChange) -> Void)? in
            if s.handler == nil { s.waiting.append(change) }
            return s.handler
        }
        handler?(change)
    }
}
