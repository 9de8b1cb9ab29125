import CNGHTTP2
import Testing

@testable import H2Transport

@Suite struct HeaderEncoderTests {
    /// The word-at-a-time lowercasing agrees with the byte-at-a-time rule for every byte value, at every
    /// length and alignment around a word.
    @Test func lowercasingMatchesTheByteRule() {
        func reference(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b | 0x20 : b }
        var rng = SystemRandomNumberGenerator()
        for length in 0...40 {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
                var out = bytes
                out.withUnsafeMutableBytes { HeaderEncoder.lowercaseASCII($0.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 1)!, count: length) }
                #expect(out == bytes.map(reference))
            }
        }
        var name = Array("X-APNs-Emulator-Version".utf8)
        name.withUnsafeMutableBytes { HeaderEncoder.lowercaseASCII($0.baseAddress!, count: $0.count) }
        #expect(String(decoding: name, as: UTF8.self) == "x-apns-emulator-version")
        var edges: [UInt8] = [0x40, 0x41, 0x5A, 0x5B, 0x60, 0x61, 0x7A, 0xC1, 0xDA]
        edges.withUnsafeMutableBytes { HeaderEncoder.lowercaseASCII($0.baseAddress!, count: $0.count) }
        #expect(edges == [0x40, 0x61, 0x7A, 0x5B, 0x60, 0x61, 0x7A, 0xC1, 0xDA])
    }

    /// What the encoder handed nghttp2 for field `i`: name, value and whether the name is passed uncopied.
    private func field(_ e: HeaderEncoder, _ i: Int) -> (name: String, value: String, uncopiedName: Bool, pointer: UnsafeMutablePointer<UInt8>) {
        e.withFields { nv, count in
            precondition(i < count)
            let f = nv[i]
            return (String(decoding: UnsafeBufferPointer(start: f.name, count: f.namelen), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(start: f.value, count: f.valuelen), as: UTF8.self),
                    f.flags & UInt8(NGHTTP2_NV_FLAG_NO_COPY_NAME.rawValue) != 0, f.name)
        }
    }

    /// Adds a field as the transport does, from a header list's bytes.
    private func add(_ e: HeaderEncoder, _ name: String, _ value: String, neverIndexed: Bool = false) {
        var name = name, value = value
        name.withUTF8 { n in
            value.withUTF8 { v in
                e.add(name: UnsafeRawBufferPointer(n), value: UnsafeRawBufferPointer(v), neverIndexed: neverIndexed)
            }
        }
    }

    /// A lowercase name is kept once and handed to nghttp2 uncopied on every later message; the never-indexed
    /// flag rides along.
    @Test func aLowercaseNameIsKeptOnceAndPassedUncopied() {
        let e = HeaderEncoder()
        e.begin(fields: 2, byteCount: 64)
        add(e, "apns-id", "one", neverIndexed: true)
        let first = field(e, 0)
        #expect(first.name == "apns-id" && first.value == "one" && first.uncopiedName)
        e.withFields { nv, _ in #expect(nv[0].flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) != 0) }
        e.begin(fields: 2, byteCount: 64)
        add(e, "apns-id", "two")
        let second = field(e, 0)
        #expect(second.name == "apns-id" && second.value == "two" && second.uncopiedName)
        e.withFields { nv, _ in #expect(nv[0].flags & UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue) == 0) }
        #expect(second.pointer == first.pointer)
        #expect(e.keptNameCount == 1)
    }

    /// A name with capitals goes out lowercased from a copy, and is not kept (a kept name must already be
    /// lowercase: nghttp2 does not lowercase uncopied names).
    @Test func aNameWithCapitalsIsCopiedLowercase() {
        let e = HeaderEncoder()
        e.begin(fields: 1, byteCount: 64)
        add(e, "X-Mixed-Case", "Value")
        let f = field(e, 0)
        #expect(f.name == "x-mixed-case" && f.value == "Value" && !f.uncopiedName)
        #expect(e.keptNameCount == 0)
    }

    /// Past the limit, new names are copied per message and still go out right; kept ones stay uncopied.
    @Test func namesBeyondTheLimitAreCopied() {
        let e = HeaderEncoder()
        let names = (0..<(HeaderEncoder.internLimit + 5)).map { "x-name-\($0)" }
        e.begin(fields: names.count, byteCount: 64 * names.count)
        for n in names { add(e, n, "v-" + n) }
        #expect(e.keptNameCount == HeaderEncoder.internLimit)
        for (i, n) in names.enumerated() {
            let f = field(e, i)
            #expect(f.name == n && f.value == "v-" + n)
            #expect(f.uncopiedName == (i < HeaderEncoder.internLimit))
        }
    }

    /// A pseudo-header's literal name is passed as it is, uncopied.
    @Test func aPseudoHeaderNameIsTheLiteral() {
        let e = HeaderEncoder()
        e.begin(fields: 1, byteCount: 16)
        let status: StaticString = ":status"
        e.add(status, "200")
        let f = field(e, 0)
        #expect(f.name == ":status" && f.value == "200" && f.uncopiedName)
        #expect(UnsafePointer(f.pointer) == status.utf8Start)
    }
}
