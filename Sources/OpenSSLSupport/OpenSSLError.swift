import COpenSSL

/// A failure inside libcrypto, carrying everything OpenSSL said about it.
///
/// OpenSSL reports failures through a thread-local queue rather than return values, and a queue left
/// undrained is misattributed to whatever call fails next on the same thread. Every failing call in
/// this module therefore drains the queue into one of these at once, so the error travels with the
/// operation that caused it and the next operation starts clean.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The OpenSSL (or module) function that reported failure, e.g. `"PEM_read_bio_PrivateKey"`.
    public let function: String
    /// The queue's entries, oldest first, as `ERR_error_string_n` renders them plus any attached data.
    public let errors: [String]

    /// Builds an error whose reason is ours rather than OpenSSL's, e.g. a PEM with no certificate in it.
    ///
    /// The queue is drained anyway so whatever OpenSSL queued on the way is kept next to our reason.
    /// - Parameters:
    ///   - function: The function that failed.
    ///   - reason: What was wrong, in words.
    init(function: String, reason: String) {
        self.function = function
        self.errors = [reason] + Self.drainQueue()
    }

    private init(function: String, errors: [String]) {
        self.function = function
        self.errors = errors
    }

    /// Empties this thread's OpenSSL error queue into an error attributed to `function`.
    ///
    /// - Parameter function: The call that just returned failure.
    /// - Returns: The error; its `errors` may be empty when OpenSSL failed without saying why.
    public static func drain(_ function: String) -> OpenSSLError {
        OpenSSLError(function: function, errors: drainQueue())
    }

    public var description: String {
        if errors.isEmpty {
            return "OpenSSLError(\(function))"
        }
        return "OpenSSLError(\(function)): " + errors.joined(separator: "; ")
    }

    /// Clears the queue before an operation, so a later `drain` reports only that operation's failures.
    static func clearQueue() {
        ERR_clear_error()
    }

    private static func drainQueue() -> [String] {
        var entries: [String] = []
        while true {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            var entry = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if flags & ERR_TXT_STRING != 0, let data, data.pointee != 0 {
                entry += " (\(String(cString: data)))"
            }
            entries.append(entry)
        }
        return entries
    }
}
