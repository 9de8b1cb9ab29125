/// Where the shared store is: `redis://HOST:PORT[/DB]` (`--state-store`).
///
/// Only what the emulator uses is accepted; anything else (a password, TLS, a query) is refused with what
/// was expected, rather than silently ignored.
public struct RedisAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    /// The logical database (`SELECT`), 0 unless the URL names one.
    public var database: Int

    public init(host: String, port: Int = 6379, database: Int = 0) {
        self.host = host
        self.port = port
        self.database = database
    }

    /// Parses `redis://HOST[:PORT][/DB]`; the error says what was expected.
    public init(parsing text: String) throws(RedisAddressError) {
        let scheme = "redis://"
        guard text.hasPrefix(scheme) else {
            throw RedisAddressError(text, "expected redis://HOST:PORT[/DB] (rediss:// and unix sockets are not supported)")
        }
        var rest = Substring(text.dropFirst(scheme.count))
        guard !rest.contains("@") else { throw RedisAddressError(text, "a user or password is not supported") }
        guard !rest.contains("?") && !rest.contains("#") else {
            throw RedisAddressError(text, "query options are not supported")
        }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let db = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !db.isEmpty {
                guard let n = Int(db), (0...15).contains(n) else {
                    throw RedisAddressError(text, "the database after / must be a number 0–15, not '\(db)'")
                }
                database = n
            }
        }
        var host = rest
        var port = 6379
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw RedisAddressError(text, "an IPv6 host needs its ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let n = Int(after.dropFirst()), (1...65535).contains(n) else {
                    throw RedisAddressError(text, "the port must be a number 1–65535")
                }
                port = n
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            guard let n = Int(rest[rest.index(after: colon)...]), (1...65535).contains(n) else {
                throw RedisAddressError(text, "the port must be a number 1–65535, not '\(rest[rest.index(after: colon)...])'")
            }
            port = n
        }
        guard !host.isEmpty else { throw RedisAddressError(text, "the host is missing") }
        self.init(host: String(host), port: port, database: database)
    }

    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "redis://\(h):\(port)/\(database)"
    }
}
