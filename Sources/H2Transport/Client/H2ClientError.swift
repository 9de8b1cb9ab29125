/// Why a client request or connection failed.
public enum H2ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// TCP connect or TLS handshake failed, or the server sent no HTTP/2 SETTINGS in time.
    case connectFailed(String)
    /// The connection closed before the response completed.
    case connectionClosed(String)
    /// The server reset the stream (RST_STREAM) with this HTTP/2 error code; REFUSED_STREAM (7) is safe to retry.
    case streamReset(UInt32)
    /// nghttp2 refused to submit the request (e.g. after GOAWAY).
    case submitFailed(String)

    public var description: String {
        switch self {
        case .connectFailed(let s): return "connect failed: \(s)"
        case .connectionClosed(let s): return "connection closed: \(s)"
        case .streamReset(let code): return "stream reset with HTTP/2 error \(code)"
        case .submitFailed(let s): return "request not submitted: \(s)"
        }
    }
}
