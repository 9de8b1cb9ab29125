import CNGHTTP2
import COpenSSL
import CShims

/// An `SSL_CTX`: certificates, protocol floor and ALPN, shared by every connection of a listener or client.
///
/// Immutable once built, so one context serves all event loops (OpenSSL's SSL_CTX is thread-safe for
/// creating SSL objects).
final class TLSContext: @unchecked Sendable {
    // @unchecked Sendable: `ctx` is configured in init and only read (SSL_new) afterwards.
    let ctx: OpaquePointer

    /// TLS 1.2 must use AEAD suites with HTTP/2 (RFC 7540 §9.2.2); TLS 1.3 suites all are.
    private static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    init(server config: TLSServerConfiguration) throws(TLSError) {
        guard let ctx = SSL_CTX_new(TLS_server_method()) else { throw TLSError.drain("SSL_CTX_new") }
        self.ctx = ctx
        try applyCommon()
        _ = CShims_SSL_CTX_set_options(ctx, CShims_SSL_OP_CIPHER_SERVER_PREFERENCE)
        _ = CShims_SSL_CTX_set_session_cache_mode(ctx, CShims_SSL_SESS_CACHE_SERVER)
        guard SSL_CTX_use_certificate_chain_file(ctx, config.certificateChainFile) == 1 else {
            throw TLSError.drain("loading certificate chain \(config.certificateChainFile)")
        }
        guard SSL_CTX_use_PrivateKey_file(ctx, config.privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw TLSError.drain("loading private key \(config.privateKeyFile)")
        }
        guard SSL_CTX_check_private_key(ctx) == 1 else {
            throw TLSError.drain("matching \(config.privateKeyFile) to \(config.certificateChainFile)")
        }
        SSL_CTX_set_alpn_select_cb(ctx, { _, out, outlen, inp, inlen, _ in
            // Prefer h2; anything else gets no ALPN answer and is still spoken to in HTTP/2 (clients such as
            // aioapns offer no ALPN at all).
            guard let inp, let out, let outlen else { return SSL_TLSEXT_ERR_NOACK }
            var selected: UnsafeMutablePointer<UInt8>? = nil
            let rc = nghttp2_select_next_protocol(&selected, outlen, inp, inlen)
            guard rc == 1, let selected else { return SSL_TLSEXT_ERR_NOACK }
            out.pointee = UnsafePointer(selected)
            return SSL_TLSEXT_ERR_OK
        }, nil)
        if let trust = config.clientCertificateTrustFile {
            guard SSL_CTX_load_verify_locations(ctx, trust, nil) == 1 else {
                throw TLSError.drain("loading client trust roots \(trust)")
            }
            if let names = SSL_load_client_CA_file(trust) { SSL_CTX_set_client_CA_list(ctx, names) }
            // Ask for a certificate but never fail the handshake: the verdict is read with
            // SSL_get_verify_result and judged by the application.
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, { _, _ in 1 })
        }
    }

    init(client config: TLSClientConfiguration) throws(TLSError) {
        guard let ctx = SSL_CTX_new(TLS_client_method()) else { throw TLSError.drain("SSL_CTX_new") }
        self.ctx = ctx
        try applyCommon()
        if config.verifyPeer {
            let ok = config.trustRootsFile.map { SSL_CTX_load_verify_locations(ctx, $0, nil) }
                ?? SSL_CTX_set_default_verify_paths(ctx)
            guard ok == 1 else { throw TLSError.drain("loading trust roots \(config.trustRootsFile ?? "(default)")") }
            SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nil)
        } else {
            SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, nil)
        }
        if let chain = config.certificateChainFile {
            guard SSL_CTX_use_certificate_chain_file(ctx, chain) == 1 else {
                throw TLSError.drain("loading client certificate \(chain)")
            }
            guard SSL_CTX_use_PrivateKey_file(ctx, config.privateKeyFile ?? chain, SSL_FILETYPE_PEM) == 1 else {
                throw TLSError.drain("loading client key \(config.privateKeyFile ?? chain)")
            }
        }
        if !config.alpnProtocols.isEmpty {
            var wire: [UInt8] = []
            for proto in config.alpnProtocols {
                wire.append(UInt8(proto.utf8.count))
                wire.append(contentsOf: proto.utf8)
            }
            // Unlike most OpenSSL calls, 0 means success here.
            guard SSL_CTX_set_alpn_protos(ctx, wire, UInt32(wire.count)) == 0 else {
                throw TLSError.drain("SSL_CTX_set_alpn_protos")
            }
        }
    }

    private func applyCommon() throws(TLSError) {
        _ = CShims_SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION)
        _ = CShims_SSL_CTX_set_options(
            ctx, CShims_SSL_OP_NO_COMPRESSION | CShims_SSL_OP_NO_RENEGOTIATION)
        // RELEASE_BUFFERS frees OpenSSL's 16 KiB record buffers while a connection is idle: the difference
        // between ~80 KiB and ~30 KiB per idle connection.
        _ = CShims_SSL_CTX_set_mode(ctx, CShims_SSL_MODE_RELEASE_BUFFERS)
        guard SSL_CTX_set_cipher_list(ctx, Self.tls12Ciphers) == 1 else {
            throw TLSError.drain("SSL_CTX_set_cipher_list")
        }
    }

    deinit {
        SSL_CTX_free(ctx)
    }
}
