import Testing
@testable import OpenSSLSupport

@Suite struct ECDSASignatureTests {
    @Test func shortScalarsArePaddedTo32BytesEach() throws {
        // SEQUENCE { INTEGER 1, INTEGER 2 }: both scalars far shorter than 32 bytes.
        let der: [UInt8] = [0x30, 0x06, 0x02, 0x01, 0x01, 0x02, 0x01, 0x02]
        let raw = try ECDSASignature.raw(fromDER: der)
        #expect(raw.count == 64)
        #expect(raw[31] == 1 && raw[63] == 2)
        #expect(raw.filter { $0 != 0 }.count == 2)
        #expect(ECDSASignature.der(fromRaw: raw) == der)
    }

    @Test func highBitScalarsGetTheirDERSignByteBack() throws {
        let raw = [UInt8](repeating: 0xFF, count: 64)
        let der = try #require(ECDSASignature.der(fromRaw: raw))
        // 0x00 sign octet before each 32-byte scalar: 2 + 2 * (2 + 33) = 72 bytes.
        #expect(der.count == 72)
        #expect(try ECDSASignature.raw(fromDER: der) == raw)
    }

    @Test func rawOfWrongLengthHasNoDERForm() {
        #expect(ECDSASignature.der(fromRaw: [UInt8](repeating: 1, count: 63)) == nil)
        #expect(ECDSASignature.der(fromRaw: []) == nil)
    }

    @Test func garbageDERThrows() {
        #expect(throws: OpenSSLError.self) { try ECDSASignature.raw(fromDER: [0x30, 0x03, 0x02]) }
    }
}
