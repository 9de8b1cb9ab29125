import APNsProtocol
import Foundation
import Testing

@Suite struct PayloadScannerTests {
    func scan(_ text: String) -> PayloadScanner.Summary { PayloadScanner.scan(Array(text.utf8)) }

    @Test(arguments: [
        #"{}"#, #" { "a" : 1 } "#, #"{"aps":{"alert":{"title":"t","body":"b"}},"x":[1,2.5e3,-0.1,true,false,null]}"#,
        #"{"s":"\u00e9\n\"q\"","u":"한국어","e":"😀"}"#, #"{"a":{"b":{"c":[[],{}]}}}"#, "{\"del\":\"\u{7F}\"}",
    ])
    func objectsAreObjects(_ text: String) {
        #expect(scan(text).isObject, "\(text)")
        #expect((try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any])
    }

    @Test(arguments: [
        "", "[]", "1", #""s""#, "null", "{", #"{"a":}"#, #"{"a":1,}"#, #"{a:1}"#, #"{"a":01}"#, #"{"a":1.}"#,
        #"{"a":"\x"}"#, "{\"a\":\"\u{01}\"}", #"{"a":1} {}"#, #"{"a":tru}"#, #"{"a":[1,]}"#, #"{"a":"\u12"}"#,
        // Input ending inside a token, and NUL bytes (the scanner reads past-the-end as a 0 byte).
        "{\"a\":1}\u{0}", "{\"a\":\u{0}}", "{\"a\":\"x\u{0}\"}", #"{"a":"\"#, #"{"a":-"#, #"{"a":1e"#, #"{"a":1.5"#,
        #"{"a":"x"#, #"{"a""#, "{\u{0}",
    ])
    func nonObjectsAndBrokenJSONAreNotObjects(_ text: String) {
        #expect(!scan(text).isObject, "\(text)")
    }

    /// Strings are skipped a word at a time: a byte that matters is found at every offset around a word.
    @Test func stringBytesThatMatterAreFoundAtEveryOffset() {
        let cases: [([UInt8], Bool)] = [
            (Array(#"\""#.utf8), true), (Array(#"\\"#.utf8), true), (Array("é".utf8), true), ([0x7F], true),
            ([0x0A], false), ([0x1F], false), ([0xFF], false), ([0xC3], false), (Array(#"\q"#.utf8), false),
        ]
        for before in 0..<18 {
            for after in [0, 1, 7, 8, 9] {
                for (bytes, valid) in cases {
                    let value = [UInt8](repeating: UInt8(ascii: "x"), count: before) + bytes
                        + [UInt8](repeating: UInt8(ascii: "y"), count: after)
                    let body = Array(#"{"k":""#.utf8) + value + Array(#""}"#.utf8)
                    #expect(PayloadScanner.scan(body).isObject == valid, "\(before) \(bytes) \(after)")
                }
                // An unterminated string ending at every offset is never an object.
                #expect(!PayloadScanner.scan(Array(#"{"k":""#.utf8) + [UInt8](repeating: 0x61, count: before)).isObject)
            }
        }
    }

    @Test func invalidUTF8IsNotAnObject() {
        #expect(!PayloadScanner.scan([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D]).isObject)
    }

    @Test func deepNestingIsRefusedNotRecursedForever() {
        let deep = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        #expect(!scan(deep).isObject)
    }

    @Test func apsFieldsAreNoted() {
        let bg = scan(#"{"aps":{"content-available":1},"custom":{"aps":{"alert":"nested is not aps"}}}"#)
        #expect(bg.hasAPS && bg.contentAvailable && bg.otherAPSKeys == 0 && !bg.hasAlert)
        let alert = scan(#"{"aps":{"alert":"x","badge":3,"sound":"d","mutable-content":1,"content-available":0}}"#)
        #expect(alert.hasAlert && alert.hasBadge && alert.hasSound && alert.mutableContent && !alert.contentAvailable)
        #expect(alert.otherAPSKeys == 4)
        #expect(!scan(#"{"aps":"not an object"}"#).hasAPS)
    }
}
