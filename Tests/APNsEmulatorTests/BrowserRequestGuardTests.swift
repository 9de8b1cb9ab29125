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
    }

    @Test func aReboundHostNameIsRefusedUnlessATokenGuardsThePort() {
        #expect(Self.refused([("Host", "rebound.example:8765")]))
        #expect(!Self.refused([("Host", "emulator.internal:8765")], tokenRequired: true))
    }
}
