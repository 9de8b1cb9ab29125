import H2Transport
import Testing

@testable import EmulatorControl

/// Which requests from a browser the control API refuses (a page elsewhere, a DNS-rebinding page), and that clients
/// which send no browser headers are never refused.
@Suite struct BrowserRequestGuardTests {
    static func refused(_ headers: [(String, String)], tokenRequired: Bool = false) -> Bool {
        let request = HTTP1Request(method: "POST", path: "/_emulator/reset", headers: headers.map { H2Header($0.0, $0.1) })
        do { try BrowserRequestGuard.check(request, tokenRequired: tokenRequired); return false } catch { return true }
    }

    @Test func clientsWithoutBrowserHeadersPass() {
        #expect(!Self.refused([("Host", "127.0.0.1:8765")]))
        #expect(!Self.refused([("Host", "localhost")]))
        #expect(!Self.refused([("Host", "[::1]:8765")]))
        #expect(!Self.refused([]))
    }

    @Test func theDashboardsOwnRequestsPass() {
        #expect(!Self.refused([("Host", "127.0.0.1:8765"), ("Origin", "http://127.0.0.1:8765"), ("Sec-Fetch-Site", "same-origin")]))
    }

    @Test func aPageElsewhereIsRefused() {
        #expect(Self.refused([("Host", "127.0.0.1:8765"), ("Sec-Fetch-Site", "cross-site")]))
        #expect(Self.refused([("Host", "127.0.0.1:8765"), ("Origin", "https://evil.example")]))
        #expect(Self.refused([("Host", "127.0.0.1:8765"), ("Origin", "http://127.0.0.1:9999")]))
        #expect(Self.refused([("Host", "127.0.0.1:8765"), ("Origin", "null")]), "a sandboxed frame's form post")
    }

    @Test func aReboundHostNameIsRefusedUnlessATokenGuardsThePort() {
        #expect(Self.refused([("Host", "rebound.example:8765")]))
        // A name that merely starts like a loopback address is a name a rebinding page can own.
        for name in ["127.evil.example:8765", "127.0.0.1.evil.example", "127.0.0:8765", "127.0.0.256", "127.1.2.3.4"] {
            #expect(Self.refused([("Host", name)]), "\(name)")
        }
        for name in ["127.0.0.1:8765", "127.3.2.1", "localhost:8765", "[::1]:8765"] {
            #expect(!Self.refused([("Host", name)]), "\(name)")
        }
        #expect(!Self.refused([("Host", "emulator.internal:8765")], tokenRequired: true))
    }
}
