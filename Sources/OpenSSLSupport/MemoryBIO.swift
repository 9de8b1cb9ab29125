import COpenSSL
import CShims

/// The one place that moves bytes in and out of OpenSSL's memory BIOs.
///
/// PEM and DER routines read and write through BIOs; keeping the BIO lifetime inside these two
/// functions means no BIO pointer outlives the call that needed it.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes`.
    ///
    /// `BIO_new_mem_buf` does not copy, so the BIO must not outlive the buffer: it is freed before
    /// `withUnsafeBufferPointer` returns.
    static func reading<R>(
        _ bytes: [UInt8],
        _ function: String,
        _ body: (OpaquePointer) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
                throw OpenSSLError.drain("BIO_new_mem_buf")
            }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// Runs `write` against an empty memory BIO and returns what it wrote.
    ///
    /// - Parameters:
    ///   - function: Name of the OpenSSL writer, for the error if it returns `<= 0`.
    ///   - write: Calls the OpenSSL writer, returning its status.
    static func writing(_ function: String, _ write: (OpaquePointer) -> Int32) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw OpenSSLError.drain("BIO_new")
        }
        defer { BIO_free(bio) }
        OpenSSLError.clearQueue()
        guard write(bio) > 0 else {
            throw OpenSSLError.drain(function)
        }
        var start: UnsafeMutablePointer<CChar>? = nil
        let length = CShims_BIO_get_mem_data(bio, &start)
        guard let start, length > 0 else { return [] }
        return start.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }
}
