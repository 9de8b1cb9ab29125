import CShims
#if canImport(Glibc)
import Glibc
#endif

/// Thin, non-blocking socket calls over raw fds. The fd's owner (a listener or a connection) closes it.
enum Socket {
    /// A non-blocking listening socket bound to `address` with SO_REUSEADDR.
    static func listen(on address: SocketAddress, backlog: Int32 = 4096) throws(IOError) -> Int32 {
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | CShims_SOCK_NONBLOCK | CShims_SOCK_CLOEXEC, 0)
        guard fd >= 0 else { throw IOError(errno: errno, function: "socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if address.family == AF_INET6 {
            // A "::" listener also taking IPv4 would surprise a user who asked for IPv6 only.
            setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        let bound = address.withSockAddr { Glibc.bind(fd, $0, $1) }
        if bound != 0 {
            let err = errno
            Glibc.close(fd)
            throw IOError(errno: err, function: "bind(\(address))")
        }
        if Glibc.listen(fd, backlog) != 0 {
            let err = errno
            Glibc.close(fd)
            throw IOError(errno: err, function: "listen(\(address))")
        }
        return fd
    }

    /// The address the kernel actually bound (how a port-0 listener learns its port).
    static func localAddress(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        guard ok == 0 else { return nil }
        return SocketAddress.from(&storage)
    }

    /// Accepts one connection as a non-blocking fd, with the peer's address.
    static func accept(_ fd: Int32) throws(IOError) -> IOResult<(Int32, SocketAddress?)> {
        var storage = sockaddr_storage()
        var len = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = try syscall("accept4") {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    CShims_accept4(fd, $0, &len, CShims_SOCK_NONBLOCK | CShims_SOCK_CLOEXEC)
                }
            }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .processed(let client):
            return .processed((client, SocketAddress.from(&storage)))
        }
    }

    /// Starts a non-blocking connect; completion is signalled by writability, then `pendingError`.
    static func connect(to address: SocketAddress) throws(IOError) -> Int32 {
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | CShims_SOCK_NONBLOCK | CShims_SOCK_CLOEXEC, 0)
        guard fd >= 0 else { throw IOError(errno: errno, function: "socket") }
        let rc = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        if rc != 0 && errno != EINPROGRESS {
            let err = errno
            Glibc.close(fd)
            throw IOError(errno: err, function: "connect(\(address))")
        }
        setNoDelay(fd)
        return fd
    }

    /// SO_ERROR after an asynchronous connect: 0 means connected.
    static func pendingError(_ fd: Int32) -> Int32 {
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
        return err
    }

    /// HTTP/2 multiplexes small frames: Nagle would add 40 ms to every depth-1 exchange.
    static func setNoDelay(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Makes the next close send RST instead of FIN (used for "reset the connection" faults and hostile peers).
    static func setLingerZero(_ fd: Int32) {
        var l = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, socklen_t(MemoryLayout<linger>.size))
    }

    /// Reads and drops what the peer has already sent, up to `limit` bytes, without waiting. Closing a socket
    /// with unread input makes the kernel send RST instead of FIN, and a peer receiving RST may discard what we
    /// sent last but it has not read yet: the GOAWAY that says why the connection ends.
    /// - Returns: The bytes dropped, and whether the input ended (the peer's FIN, or the socket failed) rather than
    ///   ran dry for now or reached `limit`.
    @discardableResult
    static func discardReadable(_ fd: Int32, upTo limit: Int = 256 * 1024) -> (discarded: Int, ended: Bool) {
        withUnsafeTemporaryAllocation(byteCount: 16 * 1024, alignment: 8) { buffer in
            var total = 0
            while total < limit {
                let n = Glibc.recv(fd, buffer.baseAddress, Swift.min(buffer.count, limit - total), Int32(MSG_DONTWAIT))
                if n > 0 {
                    total += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    return (total, !(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)))
                }
            }
            return (total, false)
        }
    }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(IOError) -> IOResult<Int> {
        try syscall("read") { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// `send` with MSG_NOSIGNAL: a peer that vanished must cost an EPIPE, not the process (SIGPIPE), whatever
    /// the embedding program did with its signal handlers.
    static func write(_ fd: Int32, from buffer: UnsafeRawBufferPointer) throws(IOError) -> IOResult<Int> {
        try syscall("send") { Glibc.send(fd, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL)) }
    }
}
