import APNsProtocol
import WireBytes

/// Decides a request's environment: an Apple host named by `:authority`/`host` or SNI wins, otherwise the
/// listener's: clients that dial an IP get the listener's environment.
///
/// Works on the header's bytes: it runs for every request, and the authority is the same on every request
/// of a connection, so building and lowercasing a String each time would be pure waste.
enum EnvironmentResolver {
    static let hosts: [(StaticString, APNsEnvironment)] = [
        ("api.push.apple.com", .production), ("api.sandbox.push.apple.com", .sandbox),
        ("api.development.push.apple.com", .sandbox), ("api-broadcast.push.apple.com", .production),
        ("api-broadcast.sandbox.push.apple.com", .sandbox), ("api-manage-broadcast.push.apple.com", .production),
        ("api-manage-broadcast.sandbox.push.apple.com", .sandbox),
    ]

    static func environment(headers: borrowing HeaderFields, serverName: String?, listener: APNsEnvironment) -> APNsEnvironment {
        if let i = headers.authorityIndex ?? headers.firstIndex(of: "host"),
           let env = headers.withValue(at: i, { host($0) }) {
            return env
        }
        if let serverName, let env = host(serverName) { return env }
        return listener
    }

    /// The environment an Apple host name stands for (port stripped, any case), if it is one.
    static func host(_ text: String) -> APNsEnvironment? {
        var copy = text
        return copy.withUTF8 { host(UnsafeRawBufferPointer($0)) }
    }

    /// Bit n set: some Apple host name in `hosts` is n bytes long. Most requests name no Apple host (a client
    /// dialing an address, as load tests do), and their length alone rules every name out. A literal, not
    /// computed from `hosts`: a computed static is a `swift_once` check on every request. (Every host's own
    /// test fails should a length be missing here.)
    static var lengths: UInt64 { 1 << 18 | 1 << 26 | 1 << 28 | 1 << 30 | 1 << 35 | 1 << 36 | 1 << 43 }

    static func host(_ bytes: UnsafeRawBufferPointer) -> APNsEnvironment? {
        var end = bytes.count
        // Strip ":port" (host names here are never IPv6 literals).
        if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) { end = colon }
        guard end < 64, lengths & (1 << UInt64(end)) != 0 else { return nil }
        for (name, env) in hosts where name.utf8CodeUnitCount == end {
            var equal = true
            for i in 0..<end where bytes[i] | 0x20 != name.utf8Start[i] | 0x20 {
                equal = false
                break
            }
            if equal { return env }
        }
        return nil
    }
}
