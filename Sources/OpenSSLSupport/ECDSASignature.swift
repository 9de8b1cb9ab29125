import COpenSSL

/// Conversion between the two encodings of an ECDSA P-256 signature.
///
/// OpenSSL produces and consumes DER (`SEQUENCE { INTEGER r, INTEGER s }`, 70–72 bytes, variable);
/// JOSE (RFC 7518 §3.4), and therefore every APNs provider token, uses the fixed 64-byte `r || s`
/// with each half left-padded to 32 bytes. Getting the padding wrong fails about 1 signature in 256,
/// which is why the conversion goes through OpenSSL's own `ECDSA_SIG` rather than hand-rolled DER.
enum ECDSASignature {
    /// Width of one P-256 scalar; raw signatures are twice this.
    static let scalarLength = 32

    /// DER → raw `r || s`.
    static func raw(fromDER der: [UInt8]) throws -> [UInt8] {
        OpenSSLError.clearQueue()
        let signature: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let signature else { throw OpenSSLError.drain("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer? = nil
        var s: OpaquePointer? = nil
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 2 * scalarLength)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, Int32(scalarLength)) == Int32(scalarLength)
                && BN_bn2binpad(s, base + scalarLength, Int32(scalarLength)) == Int32(scalarLength)
        }
        guard written else {
            throw OpenSSLError(function: "BN_bn2binpad", reason: "signature scalar longer than 32 bytes")
        }
        return raw
    }

    /// Raw `r || s` → DER, or nil when `raw` is not 64 bytes.
    static func der(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard raw.count == 2 * scalarLength else { return nil }
        OpenSSLError.clearQueue()
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(scalarLength), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + scalarLength, Int32(scalarLength), nil) }
        // ECDSA_SIG_set0 takes ownership of both numbers only when it succeeds.
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = i2d_ECDSA_SIG(signature, &out)
        guard length > 0, let out else { return nil }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }
}
