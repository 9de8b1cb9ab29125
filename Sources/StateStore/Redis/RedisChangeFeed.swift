import Foundation
import Synchronization

/// Change notices (every replica's, this one's included), heard on a subscribed connection of its own, on a
/// thread of its own, which alone calls the handler: notices are handled one at a time, in the store's order.
///
/// Subscribed before `init` returns, so a change made while the caller loads the state is not missed;
/// notices that arrive before `start` wait, in order, for the thread to hand them over first. A PING each
/// second finds a connection that died without a word; when the connection breaks, the feed reconnects with
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
    private let finished = DispatchSemaphore(value: 0)

    init(address: RedisAddress, channel: String) throws {
        self.address = address
        self.channel = channel
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

    /// Delivers waiting and future notices to `handler`, on the feed's thread (within 200 ms).
    func start(_ handler: @escaping @Sendable (SharedStateChange) -> Void) {
        state.withLock { $0.handler = handler }
    }

    /// Stops listening; returns once the thread has let go of its connection (within 200 ms while connected,
    /// within a reconnect attempt's timeouts while not).
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
        var lastPing = ContinuousClock.now
        var lastHeard = ContinuousClock.now
        while !isStopped {
            deliver(nil)
            guard let c = connection else {
                Thread.sleep(forTimeInterval: Double(backoffMillis) / 1000)
                backoffMillis = min(backoffMillis * 2, 2_000)
                if let again = try? subscribe() {
                    connection = again
                    backoffMillis = 100
                    lastHeard = ContinuousClock.now
                    deliver(SharedStateChange(.everything, version: nil))
                }
                continue
            }
            do {
                if ContinuousClock.now - lastPing >= .seconds(1) {
                    try c.send(["PING"])
                    lastPing = ContinuousClock.now
                }
                let replies = try c.receive(timeoutMillis: 200)
                if !replies.isEmpty { lastHeard = ContinuousClock.now }
                for reply in replies {
                    if let change = parse(reply) { deliver(change) }
                }
                // Pings go unanswered: the server or the path to it is gone, though no reset came.
                if ContinuousClock.now - lastHeard > .seconds(3) { throw RedisError(address, "listening", "no answer to PING") }
            } catch {
                c.close()
                connection = nil
            }
        }
        connection?.close()
    }

    /// A `message` push on the channel, as a change (nil for anything else: subscribe confirmations, pongs).
    private func parse(_ reply: RedisReply) -> SharedStateChange? {
        let parts = reply.items
        guard parts.count == 3, parts[0].text == "message", let text = parts[2].text else { return nil }
        // The id may hold anything but a newline; the version is always last.
        let fields = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 4, let kind = RedisKeys.Kind(rawValue: fields[1]), let version = Int64(fields[3]) else {
            return nil
        }
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

    /// Hands `change` (nil: none, just what waits) to the handler after whatever waited for it, or keeps it
    /// waiting until there is one. Called on the feed's thread only.
    private func deliver(_ change: SharedStateChange?) {
        let (handler, ready) = state.withLock { s -> ((@Sendable (SharedStateChange) -> Void)?, [SharedStateChange]) in
            if let change { s.waiting.append(change) }
            guard let handler = s.handler else { return (nil, []) }
            defer { s.waiting = [] }
            return (handler, s.waiting)
        }
        if let handler { for c in ready { handler(c) } }
    }
}
