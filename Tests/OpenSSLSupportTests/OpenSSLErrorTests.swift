import Testing
@testable import OpenSSLSupport

@Suite struct OpenSSLErrorTests {
    @Test func failedParseCarriesTheFunctionAndOpenSSLsReasons() {
        do {
            _ = try PrivateKey(pem: "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n")
            Issue.record("garbage parsed as a key")
        } catch let error as OpenSSLError {
            #expect(error.function == "PEM_read_bio_PrivateKey")
            #expect(!error.errors.isEmpty)
            #expect(error.description.hasPrefix("OpenSSLError(PEM_read_bio_PrivateKey): "))
        } catch {
            Issue.record("unexpected error type: \(error)")
        }
    }

    @Test func drainEmptiesTheQueueSoTheNextErrorStartsClean() {
        _ = try? Certificate(pem: "no certificate here")
        let first = OpenSSLError.drain("first")
        let second = OpenSSLError.drain("second")
        #expect(second.errors.isEmpty)
        #expect(second.description == "OpenSSLError(second)")
        // The failing parse already drained its own errors into the thrown error.
        #expect(first.errors.isEmpty)
    }

    @Test func ownReasonIsListedFirst() {
        let error = OpenSSLError(function: "CertificateBuilder", reason: "notBefore is not before notAfter")
        #expect(error.errors.first == "notBefore is not before notAfter")
    }
}
