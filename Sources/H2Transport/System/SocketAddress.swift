#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 endpoint, parsed once from text so listeners and clients share one conversion.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Hashable {
        case v4(UInt32, UInt16)  // address and port, network byte order
        case v6([UInt8], UInt16)
    }
    let storage: Storage

    /// - Parameters:
    ///   - host: a numeric IPv4 or IPv6 address ("127.0.0.1", "::1", "0.0.0.0"); "localhost" means 127.0.0.1.
    ///   - port: 0–65535; 0 asks the kernel for a free port when binding.
    public init(host: String, port: Int) throws(IOError) {
        let h = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr()
        if inet_pton(AF_INET, h, &v4) == 1 {
            storage = .v4(v4.s_addr, UInt16(port).bigEndian)
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, h, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            storage = .v6(bytes, UInt16(port).bigEndian)
            return
        }
        throw IOError(errno: EINVAL, function: "inet_pton(\(host))")
    }

    init(storage: Storage) { self.storage = storage }

    var family: Int32 {
        switch storage {
        case .v4: return AF_INET
        case .v6: return AF_INET6
        }
    }

    /// The port in host byte order.
    public var port: Int {
        switch storage {
        case .v4(_, let p), .v6(_, let p): return Int(UInt16(bigEndian: p))
        }
    }

    /// The numeric host, e.g. "127.0.0.1" or "::1".
    public var host: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch storage {
        case .v4(let a, _):
            var addr = in_addr(s_addr: a)
            inet_ntop(AF_INET, &addr, &buffer, socklen_t(buffer.count))
        case .v6(let bytes, _):
            var addr = in6_addr()
            withUnsafeMutableBytes(of: &addr) { $0.copyBytes(from: bytes) }
            inet_ntop(AF_INET6, &addr, &buffer, socklen_t(buffer.count))
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String {
        if case .v6 = storage { return "[\(host)]:\(port)" }
        return "\(host):\(port)"
    }

    /// Calls `body` with a C sockaddr for this address.
    func withSockAddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> R) rethrows -> R {
        switch storage {
        case .v4(let a, let p):
            var sin = sockaddr_in()
            sin.sin_family = sa_family_t(AF_INET)
            sin.sin_port = p
            sin.sin_addr = in_addr(s_addr: a)
            return try withUnsafePointer(to: &sin) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(let bytes, let p):
            var sin6 = sockaddr_in6()
            sin6.sin6_family = sa_family_t(AF_INET6)
            sin6.sin6_port = p
            withUnsafeMutableBytes(of: &sin6.sin6_addr) { $0.copyBytes(from: bytes) }
            return try withUnsafePointer(to: &sin6) {
                try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    try body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
    }

    /// Reads back a sockaddr_storage filled by accept/getsockname/getpeername.
    static func from(_ storage: UnsafePointer<sockaddr_storage>) -> SocketAddress? {
        switch Int32(storage.pointee.ss_family) {
        case AF_INET:
            return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                SocketAddress(storage: .v4($0.pointee.sin_addr.s_addr, $0.pointee.sin_port))
            }
        case AF_INET6:
            return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                var addr = p.pointee.sin6_addr
                let bytes = withUnsafeBytes(of: &addr) { Array($0) }
                return SocketAddress(storage: .v6(bytes, p.pointee.sin6_port))
            }
        default:
            return nil
        }
    }
}
