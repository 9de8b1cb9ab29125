import Glibc
import Testing

@testable import H2Transport

/// Closing with input left unread sends RST, and a peer that gets RST may lose what it had not processed yet
/// (a GOAWAY saying why). The graceful path drops pending input first, so the peer sees our bytes, then FIN.
@Suite("Graceful close: FIN, not RST")
struct GracefulCloseTests {
    /// A loopback TCP pair: (the side that closes, the peer), both blocking.
    private func pair() throws -> (Int32, Int32) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(listener) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                bind(listener, p, len) == 0 && listen(listener, 1) == 0 && getsockname(listener, p, &len) == 0
            }
        }
        try #require(bound)
        let peer = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(peer, $0, len) == 0 }
        }
        try #require(connected)
        let accepted = accept(listener, nil, nil)
        try #require(accepted >= 0)
        return (accepted, peer)
    }

    /// What the peer reads after the other side wrote "bye" and closed: the bytes and then EOF, or an error.
    private func peerAfterClose(discardingFirst: Bool) throws -> (text: String, endedWithReset: Bool) {
        let (closing, peer) = try pair()
        defer { Glibc.close(peer) }
        // The peer's unread input on the closing side.
        let unread = [UInt8](repeating: 7, count: 4096)
        _ = unread.withUnsafeBytes { Glibc.send(peer, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        usleep(50_000)
        _ = Array("bye".utf8).withUnsafeBytes { Glibc.send(closing, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        usleep(50_000)
        if discardingFirst { Socket.discardReadable(closing) }
        Glibc.close(closing)
        usleep(50_000)
        var got: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.recv(peer, $0.baseAddress, $0.count, 0) }
            if n > 0 { got += buffer[0..<n]; continue }
            return (String(decoding: got, as: UTF8.self), n < 0 && errno == ECONNRESET)
        }
    }

    @Test func droppingUnreadInputFirstEndsWithFIN() throws {
        let r = try peerAfterClose(discardingFirst: true)
        #expect(r.text == "bye" && !r.endedWithReset)
    }

    /// What the drop prevents, shown on the same pair: without it the close is a reset. (Here the peer still
    /// reads "bye" before the error; a peer busy writing gets the reset from its write first and may never
    /// read the rest, which is how a client can miss the GOAWAY.)
    @Test func closingWithUnreadInputResets() throws {
        let r = try peerAfterClose(discardingFirst: false)
        #expect(r.endedWithReset)
    }
}
