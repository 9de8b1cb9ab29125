import OpenSSLSupport

/// A TLS failure with OpenSSL's error queue drained into text, so the cause survives to the log.
public struct TLSError: Error, CustomStringConvertible, Sendable {
    public let operation: String
    public let stack: [String]

    init(_ operation: String, stack: [String]) {
        self.operation = operation
        self.stack = stack
    }

    /// Captures and clears OpenSSL's thread-local error queue (through `OpenSSLError`).
    static func drain(_ operation: String) -> TLSError {
        TLSError(operation, stack: OpenSSLError.drain(operation).errors)
    }

    public var description: String {
        stack.isEmpty ? "\(operation) failed" : "\(operation) failed: \(stack.joined(separator: "; "))"
    }
}
