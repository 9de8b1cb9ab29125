import Foundation

/// One subjectAltName entry of the two kinds TLS hostname checks look at.
public enum SubjectAlternativeName: Sendable, Hashable, CustomStringConvertible {
    /// A `dNSName`, e.g. `api.sandbox.push.apple.com`.
    case dns(String)
    /// An `iPAddress` in text form (`127.0.0.1`, `::1`); parsed with `inet_pton` when encoded.
    case ipAddress(String)

    /// The entry as text without its kind, which is how callers usually compare SAN lists.
    public var description: String {
        switch self {
        case .dns(let name): return name
        case .ipAddress(let address): return address
        }
    }

    /// The address bytes (4 or 16) for `.ipAddress`, nil for `.dns` or text that is not an address.
    var addressBytes: [UInt8]? {
        guard case .ipAddress(let text) = self else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// Renders 4- or 16-byte address bytes as text, the inverse of `addressBytes`.
    static func addressText(_ bytes: [UInt8]) -> String? {
        let family: Int32
        switch bytes.count {
        case 4: family = AF_INET
        case 16: family = AF_INET6
        default: return nil
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let ok = bytes.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) != nil }
        return ok ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : nil
    }
}
