import CHiredis
import Glibc

/// One blocking connection to Redis (hiredis' synchronous API).
///
/// Not thread-safe: each owner keeps it under its own lock or on its own thread. Once hiredis reports an
/// I/O or protocol error the context is unusable, so every command that fails that way closes it, and the
/// owner reconnects.
final class RedisConnection {
    let address: RedisAddress
    private var context: UnsafeMutablePointer<redisContext>?

    /// Connects and selects the database.
    init(_ address: RedisAddress, timeoutSeconds: Int = 2) throws(RedisError) {
        self.address = address
        let tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        guard let c = redisConnectWithTimeout(address.host, Int32(address.port), tv) else {
            throw RedisError(address, "connecting", "out of memory")
        }
        if c.pointee.err != 0 {
            let why = Self.errorText(c)
            redisFree(c)
            throw RedisError(address, "connecting", why)
        }
        _ = redisSetTimeout(c, tv)
        _ = redisEnableKeepAlive(c)
        context = c
        if address.database != 0 {
            let reply = try command(["SELECT", String(address.database)])
            if case .error(let e) = reply { throw RedisError(address, "selecting database \(address.database)", e) }
        }
    }

    deinit { close() }

    var isOpen: Bool { context != nil }

    func close() {
        if let c = context { redisFree(c) }
        context = nil
    }

    /// Sends one command and waits for its reply. A Redis error reply is returned, not thrown; a broken
    /// connection throws and closes it.
    func command(_ arguments: [String]) throws(RedisError) -> RedisReply {
        try pipeline([arguments.map { Array($0.utf8) }])[0]
    }

    func command(bytes arguments: [[UInt8]]) throws(RedisError) -> RedisReply {
        try pipeline([arguments])[0]
    }

    /// Sends every command, then reads one reply each: one round trip for all of them.
    func pipeline(_ commands: [[[UInt8]]]) throws(RedisError) -> [RedisReply] {
        guard let c = context else { throw RedisError(address, "sending a command", "the connection is closed") }
        for arguments in commands {
            try append(c, arguments)
        }
        var replies: [RedisReply] = []
        replies.reserveCapacity(commands.count)
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(c, &raw) == REDIS_OK, let raw else {
                let why = Self.errorText(c)
                close()
                throw RedisError(address, "reading a reply", why)
            }
            let reply = raw.assumingMemoryBound(to: redisReply.self)
            replies.append(RedisReply(reply))
            freeReplyObject(raw)
        }
        return replies
    }

    /// Sends a command without reading its reply (SUBSCRIBE, whose replies arrive as messages).
    func send(_ arguments: [String]) throws(RedisError) {
        guard let c = context else { throw RedisError(address, "sending a command", "the connection is closed") }
        try append(c, arguments.map { Array($0.utf8) })
        var done: Int32 = 0
        while done == 0 {
            guard redisBufferWrite(c, &done) == REDIS_OK else {
                let why = Self.errorText(c)
                close()
                throw RedisError(address, "sending a command", why)
            }
        }
    }

    /// Waits up to `timeoutMillis` for replies pushed by the server (pub/sub messages) and returns those that
    /// arrived (none on timeout).
    func receive(timeoutMillis: Int32) throws(RedisError) -> [RedisReply] {
        guard let c = context else { throw RedisError(address, "receiving", "the connection is closed") }
        var replies: [RedisReply] = []
        func drain() throws(RedisError) {
            while true {
                var raw: UnsafeMutableRawPointer?
                guard redisGetReplyFromReader(c, &raw) == REDIS_OK else {
                    let why = Self.errorText(c)
                    close()
                    throw RedisError(address, "reading a message", why)
                }
                guard let raw else { return }
                replies.append(RedisReply(raw.assumingMemoryBound(to: redisReply.self)))
                freeReplyObject(raw)
            }
        }
        try drain()
        if !replies.isEmpty { return replies }
        var fds = pollfd(fd: c.pointee.fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&fds, 1, timeoutMillis)
        guard ready > 0 else { return [] }
        guard redisBufferRead(c) == REDIS_OK else {
            let why = Self.errorText(c)
            close()
            throw RedisError(address, "reading a message", why)
        }
        try drain()
        return replies
    }

    private func append(_ c: UnsafeMutablePointer<redisContext>, _ arguments: [[UInt8]]) throws(RedisError) {
        // hiredis copies the arguments into its output buffer before returning.
        let status: Int32 = withArgv(arguments) { argv, lengths in
            redisAppendCommandArgv(c, Int32(arguments.count), argv, lengths)
        }
        guard status == REDIS_OK else {
            let why = Self.errorText(c)
            close()
            throw RedisError(address, "sending a command", why)
        }
    }

    private func withArgv<R>(_ arguments: [[UInt8]],
                             _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> R) -> R {
        let lengths = arguments.map(\.count)
        // One contiguous copy holds every argument, so each pointer stays valid for the call.
        var joined: [UInt8] = []
        joined.reserveCapacity(lengths.reduce(0, +) + 1)
        for a in arguments { joined.append(contentsOf: a) }
        joined.append(0)
        return joined.withUnsafeBufferPointer { all in
            var pointers: [UnsafePointer<CChar>?] = []
            pointers.reserveCapacity(arguments.count)
            var offset = 0
            let base = UnsafeRawPointer(all.baseAddress!).assumingMemoryBound(to: CChar.self)
            for n in lengths {
                pointers.append(base + offset)
                offset += n
            }
            return pointers.withUnsafeMutableBufferPointer { p in
                lengths.withUnsafeBufferPointer { l in body(p.baseAddress!, l.baseAddress!) }
            }
        }
    }

    private static func errorText(_ c: UnsafeMutablePointer<redisContext>) -> String {
        let text = withUnsafeBytes(of: c.pointee.errstr) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        return text.isEmpty ? "error \(c.pointee.err)" : text
    }
}
