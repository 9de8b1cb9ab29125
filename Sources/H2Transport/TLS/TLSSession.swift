import COpenSSL
import CShims

/// One TLS connection's `SSL`, fed from and draining into memory.
///
/// Ciphertext produced by OpenSSL goes to the loop's shared `scratchOut` while nothing is queued, and to
/// this session's own `pendingOut` only when the socket pushed back; an idle connection therefore owns no
/// output buffer at all (the 48 KiB-per-idle-connection budget).
final class TLSSession {
    enum HandshakeResult { case complete, wantMore, failed(TLSError) }
    enum ReadResult { case bytes(Int), wantMore, closed, failed(TLSError) }

    private let ssl: OpaquePointer
    /// Strong for the same reason as in H2Connection (no unowned check on the hot path).
    private let loop: EventLoop
    // Owned by the loop: the ciphertext slice being consumed by the current SSL call.
    private var inbound: UnsafeRawBufferPointer? = nil
    private var inboundOffset = 0
    /// Set once the socket reported EOF: reads then report 0 so OpenSSL sees an unexpected EOF.
    var peerClosed = false
    /// Ciphertext that could not be written yet (the socket pushed back).
    private(set) var pendingOut: [UInt8] = []

    /// - Parameters:
    ///   - serverName: client only: sent as SNI and verified against the certificate's DNS names.
    ///   - verifyAddress: client only: an IP literal to verify instead when no name is sent (no SNI).
    init(context: TLSContext, loop: EventLoop, isServer: Bool, serverName: String? = nil,
         verifyAddress: String? = nil) throws(TLSError) {
        guard let ssl = SSL_new(context.ctx) else { throw TLSError.drain("SSL_new") }
        guard let bio = BIO_new(MemoryBIO.method) else {
            SSL_free(ssl)
            throw TLSError.drain("BIO_new")
        }
        self.ssl = ssl
        self.loop = loop
        BIO_set_data(bio, Borrowed(self).opaque)
        // One BIO for both directions: with rbio == wbio SSL_set_bio takes a single reference (unlike the
        // SSL_set0_rbio/SSL_set0_wbio pair), so BIO_new's is the one SSL_free drops.
        SSL_set_bio(ssl, bio, bio)
        if isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            // Verify the name in the certificate, not only the chain.
            if let serverName {
                _ = CShims_SSL_set_tlsext_host_name(ssl, serverName)
                SSL_set1_host(ssl, serverName)
            } else if let verifyAddress {
                X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), verifyAddress)
            }
        }
    }

    deinit {
        SSL_free(ssl)
    }

    // MARK: BIO callbacks (loop thread, inside an SSL call)

    func bioWrite(_ bytes: UnsafeRawBufferPointer) {
        if pendingOut.isEmpty {
            loop.scratchOut.append(contentsOf: bytes)
        } else {
            pendingOut.append(contentsOf: bytes)
        }
    }

    func bioRead(_ into: UnsafeMutableRawBufferPointer) -> Int {
        guard let inbound else { return 0 }
        let n = min(into.count, inbound.count - inboundOffset)
        if n > 0 {
            into.baseAddress!.copyMemory(from: inbound.baseAddress! + inboundOffset, byteCount: n)
            inboundOffset += n
        }
        return n
    }

    // MARK: Driving OpenSSL

    /// Makes `ciphertext` available to the following SSL calls (until `endInput`).
    func beginInput(_ ciphertext: UnsafeRawBufferPointer) {
        inbound = ciphertext
        inboundOffset = 0
    }

    func endInput() {
        inbound = nil
        inboundOffset = 0
    }

    func handshake() -> HandshakeResult {
        ERR_clear_error()
        let rc = SSL_do_handshake(ssl)
        if rc == 1 { return .complete }
        let err = SSL_get_error(ssl, rc)
        switch err {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wantMore
        default: return .failed(TLSError.drain("TLS handshake (SSL error \(err))"))
        }
    }

    /// Decrypts into `buffer`.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        ERR_clear_error()
        var n = 0
        let rc = SSL_read_ex(ssl, buffer.baseAddress, buffer.count, &n)
        if rc == 1 { return .bytes(n) }
        let err = SSL_get_error(ssl, 0)
        switch err {
        // WANT_WRITE can come from a TLS 1.3 KeyUpdate; our BIO never blocks writes, so more input resolves it.
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return .wantMore
        case SSL_ERROR_ZERO_RETURN: return .closed
        case SSL_ERROR_SYSCALL where peerClosed: return .closed
        default: return .failed(TLSError.drain("SSL_read (SSL error \(err))"))
        }
    }

    /// Encrypts all of `bytes` into the output buffers; never blocks because the BIO never pushes back.
    func write(_ bytes: UnsafeRawBufferPointer) -> TLSError? {
        guard bytes.count > 0 else { return nil }
        ERR_clear_error()
        var written = 0
        let rc = SSL_write_ex(ssl, bytes.baseAddress, bytes.count, &written)
        if rc == 1 { return nil }
        return TLSError.drain("SSL_write (SSL error \(SSL_get_error(ssl, 0)))")
    }

    /// Queues a close_notify alert; best effort on a closing connection.
    func sendCloseNotify() {
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
    }

    // MARK: Output

    var hasPendingOutput: Bool { !pendingOut.isEmpty }

    /// Writes queued ciphertext to `fd`. Returns false when the socket pushed back (wait for EPOLLOUT).
    func flush(to fd: Int32) throws(IOError) -> Bool {
        if !pendingOut.isEmpty {
            // Output produced while blocked went to pendingOut, so scratch holds nothing of ours.
            let done = try writeOut(&pendingOut, fd: fd)
            // A connection that was blocked once must not keep a large buffer while idle.
            if done { pendingOut = [] }
            return done
        }
        if loop.scratchOut.isEmpty { return true }
        let done = try writeOut(&loop.scratchOut, fd: fd)
        if !done {
            // Keep what the socket did not take; the shared scratch must be empty before the next connection runs.
            pendingOut = loop.scratchOut
            loop.scratchOut.removeAll(keepingCapacity: true)
        }
        return done
    }

    private func writeOut(_ buffer: inout [UInt8], fd: Int32) throws(IOError) -> Bool {
        var offset = 0
        defer {
            if offset == buffer.count {
                buffer.removeAll(keepingCapacity: true)
            } else if offset > 0 {
                buffer.removeSubrange(0..<offset)
            }
        }
        while offset < buffer.count {
            let outcome = buffer.withUnsafeBytes { raw in
                Result { () throws(IOError) in try Socket.write(fd, from: UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            }
            switch try outcome.get() {
            case .processed(let n): offset += n
            case .wouldBlock: return false
            }
        }
        return true
    }

    // MARK: What the layer above may know

    var negotiatedALPN: String? {
        var data: UnsafePointer<UInt8>? = nil
        var len: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &len)
        guard let data, len > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(len)), as: UTF8.self)
    }

    var serverName: String? {
        guard let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return nil }
        return String(cString: name)
    }

    var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    var cipherName: String {
        guard let cipher = SSL_get_current_cipher(ssl) else { return "" }
        return String(cString: SSL_CIPHER_get_name(cipher))
    }

    /// The peer's certificate as DER, and whether it verified against the configured roots.
    var peerCertificate: (der: [UInt8], verified: Bool)? {
        guard let x509 = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(x509) }
        let len = i2d_X509(x509, nil)
        guard len > 0 else { return nil }
        var der = [UInt8](repeating: 0, count: Int(len))
        der.withUnsafeMutableBufferPointer { buf in
            var p: UnsafeMutablePointer<UInt8>? = buf.baseAddress
            _ = i2d_X509(x509, &p)
        }
        return (der, SSL_get_verify_result(ssl) == X509_V_OK)
    }
}
