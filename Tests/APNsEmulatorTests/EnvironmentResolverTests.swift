import APNsProtocol
import Testing

@testable import APNsEmulator

/// Which environment a host name stands for, read from the request's bytes on every push.
@Suite("Environment from the host name")
struct EnvironmentResolverTests {
    /// The length prefilter, a literal, has a bit for every Apple host the resolver knows and no other.
    @Test func theLengthMaskIsExactlyTheKnownHostsLengths() {
        let fromHosts = EnvironmentResolver.hosts.reduce(UInt64(0)) { $0 | 1 << UInt64($1.0.utf8CodeUnitCount) }
        #expect(EnvironmentResolver.lengths == fromHosts)
    }

    @Test func everyAppleHostInAnyCaseAndWithAPortNamesItsEnvironment() {
        let hosts: [(String, APNsEnvironment)] = [
            ("api.push.apple.com", .production), ("api.sandbox.push.apple.com", .sandbox),
            ("api.development.push.apple.com", .sandbox), ("api-broadcast.push.apple.com", .production),
            ("api-broadcast.sandbox.push.apple.com", .sandbox), ("api-manage-broadcast.push.apple.com", .production),
            ("api-manage-broadcast.sandbox.push.apple.com", .sandbox),
        ]
        for (host, env) in hosts {
            #expect(EnvironmentResolver.host(host) == env)
            #expect(EnvironmentResolver.host(host.uppercased() + ":443") == env)
            #expect(EnvironmentResolver.host(host + ":2197") == env)
        }
    }

    /// Addresses, other names (also of an Apple host's length), and long names stand for none.
    @Test func otherNamesStandForNone() {
        for host in ["127.0.0.1:8443", "127.0.0.1", "localhost", "", ":443", "api.push.apple.co", "api.push.apple.org",
                     "xpi.sandbox.push.apple.com", String(repeating: "a", count: 200), "api.push.apple.com.evil:443"] {
            #expect(EnvironmentResolver.host(host) == nil, "\(host)")
        }
    }
}
