import COpenSSL
import CShims
import Foundation

extension Certificate {
    /// Whether `issuer`'s key made this certificate's signature.
    ///
    /// Only the signature is checked, not names, validity or CA flags; use `verify(chainTo:at:)` for
    /// the full RFC 5280 path check.
    /// - Parameter issuer: The presumed issuer.
    public func isSignedBy(_ issuer: Certificate) -> Bool {
        defer { OpenSSLError.clearQueue() }
        guard let key = X509_get0_pubkey(issuer.x509) else { return false }
        return X509_verify(x509, key) == 1
    }

    /// Whether this certificate chains to one of `roots` at `date` (names, signatures, validity, CA flags).
    /// - Parameters:
    ///   - roots: Trust anchors (self-signed CAs).
    ///   - intermediates: Untrusted certificates that may fill the path between this one and a root.
    ///   - date: The moment to check validity at; injected so tests can check expiry without waiting.
    public func verify(
        chainTo roots: [Certificate],
        intermediates: [Certificate] = [],
        at date: Date = Date()
    ) -> Bool {
        verificationFailure(chainTo: roots, intermediates: intermediates, at: date) == nil
    }

    /// Why path validation fails, in OpenSSL's words (e.g. `"certificate has expired"`), or nil when it passes.
    ///
    /// Offered next to `verify` because "false" alone makes a broken certificate set hard to diagnose.
    /// - Parameters:
    ///   - roots: Trust anchors (self-signed CAs).
    ///   - intermediates: Untrusted certificates that may fill the path.
    ///   - date: The moment to check validity at.
    public func verificationFailure(
        chainTo roots: [Certificate],
        intermediates: [Certificate] = [],
        at date: Date = Date()
    ) -> String? {
        defer { OpenSSLError.clearQueue() }
        guard let store = X509_STORE_new() else { return "X509_STORE_new failed" }
        defer { X509_STORE_free(store) }
        for root in roots {
            // The store takes its own reference; adding the same root twice is harmless.
            guard X509_STORE_add_cert(store, root.x509) == 1 else { return "X509_STORE_add_cert failed" }
        }
        guard let untrusted = CShims_sk_X509_new_null() else { return "sk_X509_new_null failed" }
        defer { CShims_sk_X509_pop_free(untrusted) }
        for certificate in intermediates {
            // The stack is freed with X509_free on each element, so each push carries its own reference.
            X509_up_ref(certificate.x509)
            if CShims_sk_X509_push(untrusted, certificate.x509) <= 0 {
                X509_free(certificate.x509)
                return "sk_X509_push failed"
            }
        }
        guard let context = X509_STORE_CTX_new() else { return "X509_STORE_CTX_new failed" }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, x509, untrusted) == 1 else { return "X509_STORE_CTX_init failed" }
        X509_STORE_CTX_set_time(context, 0, time_t(date.timeIntervalSince1970.rounded(.down)))
        if X509_verify_cert(context) == 1 {
            return nil
        }
        return String(cString: X509_verify_cert_error_string(Int(X509_STORE_CTX_get_error(context))))
    }
}
