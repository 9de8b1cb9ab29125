#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Questions about the address the listeners bind to.
///
/// One answer for both the CLI (which refuses the flags before anything starts) and `Emulator.init` (which refuses
/// the configuration for every other caller), so the two can never disagree about what needs a control token.
public enum NetworkAddress {
    /// Whether binding `host` keeps every listener on this machine: `localhost`, 127.0.0.0/8, `::1` in any spelling,
    /// or an IPv4 loopback address mapped into IPv6 (`::ffff:127.0.0.1`).
    ///
    /// Addresses are parsed with `inet_pton` rather than matched as text, so `0:0:0:0:0:0:0:1` counts and
    /// `127.example.com` does not. Names other than `localhost` count as reachable, since they may resolve anywhere.
    ///
    /// - Parameter host: A bind address as given to `--host`: an IPv4 or IPv6 literal, or a name.
    public static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, host, &ipv6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &ipv6) { Array($0) }
        let isIPv6Loopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
        let isMappedIPv4Loopback = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
            && bytes[12] == 127
        return isIPv6Loopback || isMappedIPv4Loopback
    }
}
