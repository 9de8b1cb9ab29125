import COpenSSL
import Foundation

/// Conversions from OpenSSL's ASN.1 types to Swift values, shared by the certificate accessors.
enum ASN1Helpers {
    /// Dotted text of an OID (`OBJ_obj2txt` with `no_name = 1`, so never a long name).
    static func dottedOID(_ object: OpaquePointer?) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0 else { return "" }
        return string(fromCString: buffer)
    }

    /// OpenSSL's short name for an OID, or nil when OpenSSL has no NID for it.
    static func shortName(_ object: OpaquePointer?) -> String? {
        let nid = OBJ_obj2nid(object)
        guard nid != NID_undef, let name = OBJ_nid2sn(nid) else { return nil }
        return String(cString: name)
    }

    /// A new ASN1_OBJECT for dotted text only (`no_name = 1` so `"CN"` is not silently accepted).
    static func object(dotted oid: String) throws -> OpaquePointer {
        OpenSSLError.clearQueue()
        guard let object = OBJ_txt2obj(oid, 1) else {
            throw OpenSSLError(function: "OBJ_txt2obj", reason: "not a dotted OID: \(oid)")
        }
        return object
    }

    /// Raw content bytes of any ASN1_STRING (OCTET STRING, IA5String, INTEGER magnitude, …).
    static func bytes(_ string: UnsafePointer<ASN1_STRING>?) -> [UInt8] {
        guard let string, let data = ASN1_STRING_get0_data(string) else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(ASN1_STRING_length(string))))
    }

    /// Text of any string type (BMPString, PrintableString, UTF8String…) converted to UTF-8.
    static func text(_ string: UnsafePointer<ASN1_STRING>?) -> String {
        var out: UnsafeMutablePointer<UInt8>? = nil
        let length = ASN1_STRING_to_UTF8(&out, string)
        guard length >= 0, let out else {
            OpenSSLError.clearQueue()
            return ""
        }
        defer { CRYPTO_free(out, #fileID, #line) }
        return String(decoding: UnsafeBufferPointer(start: out, count: Int(length)), as: UTF8.self)
    }

    /// An ASN1_TIME as a `Date`; RFC 5280 times are UTC, so `timegm` rather than `mktime`.
    static func date(_ time: UnsafePointer<ASN1_TIME>?) -> Date {
        var components = tm()
        guard let time, ASN1_TIME_to_tm(time, &components) == 1 else {
            OpenSSLError.clearQueue()
            return Date(timeIntervalSince1970: 0)
        }
        return Date(timeIntervalSince1970: TimeInterval(timegm(&components)))
    }

    static func string(fromCString buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
