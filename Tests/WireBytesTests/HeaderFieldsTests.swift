@testable import WireBytes
import Testing

/// The header list keeps its byte buffer at its high-water mark and tracks the used length itself; these pin
/// that growth, reuse and copies never mix up one request's fields with another's.
@Suite("HeaderFields")
struct HeaderFieldsTests {
    static func append(_ list: inout HeaderFields, _ name: String, _ value: String) {
        Array(name.utf8).withUnsafeBytes { n in Array(value.utf8).withUnsafeBytes { v in list.append(name: n, value: v) } }
    }

    @Test func fieldsSurviveGrowthPastTheReservedBytes() {
        var list = HeaderFields(reservingBytes: 8, fields: 1)
        let long = String(repeating: "x", count: 300)
        Self.append(&list, ":path", "/3/device/ab")
        Self.append(&list, "authorization", "bearer " + long)
        Self.append(&list, "apns-topic", "")
        #expect(list.count == 3)
        #expect(list[0] == HeaderField(":path", "/3/device/ab"))
        #expect(list.value(at: 1) == "bearer " + long)
        #expect(list.value(at: 2) == "")
        #expect(list.byteCount == ":path/3/device/abauthorizationbearer apns-topic".utf8.count + 300)
    }

    /// The index shares the names' and values' storage: each time it outgrows its room they move behind it, and a
    /// copy into a smaller list grows that one alike.
    @Test func fieldsSurviveTheIndexOutgrowingItsRoomAgainAndAgain() {
        var list = HeaderFields(reservingBytes: 4, fields: 1)
        let expected = (0..<40).map { HeaderField("x-field-\($0)", String(repeating: "v", count: $0)) }
        for h in expected { Self.append(&list, h.name, h.value) }
        #expect(Array(list) == expected)
        var small = HeaderFields([HeaderField("a", "b")])
        small.copyFields(of: list)
        #expect(Array(small) == expected && small.sameFields(as: list))
        #expect(small.firstIndex(of: "x-field-39") == 39 && small.value(at: 39) == String(repeating: "v", count: 39))
        var empty = HeaderFields()
        empty.copyFields(of: HeaderFields())
        #expect(empty.isEmpty && empty.byteCount == 0)
    }

    @Test func removeAllReusesTheBufferWithoutLeakingOldBytes() {
        var list = HeaderFields(reservingBytes: 64, fields: 4)
        Self.append(&list, "apns-collapse-id", "first-request-value")
        list.removeAll()
        #expect(list.isEmpty && list.byteCount == 0)
        Self.append(&list, "a", "b")
        #expect(list.count == 1 && list.byteCount == 2)
        #expect(list[0] == HeaderField("a", "b"))
        #expect(list.firstIndex(of: "apns-collapse-id") == nil)
    }

    /// A request handed upward holds a copy; the pooled stream's reuse must not change it.
    @Test func aCopyKeepsItsFieldsWhenTheOriginalIsReused() {
        var list = HeaderFields(reservingBytes: 64, fields: 4)
        Self.append(&list, "apns-topic", "com.example.app")
        let copy = list
        list.removeAll()
        Self.append(&list, "apns-topic", "org.other.app!!")
        #expect(copy.value(at: 0) == "com.example.app")
        #expect(list.value(at: 0) == "org.other.app!!")
    }

    /// The field index is a high-water mark too: a shorter request after a longer one must not see the
    /// longer one's later fields, by count, iteration or lookup, and a copy keeps all of its own.
    @Test func aShorterRequestDoesNotSeeTheFieldsOfALongerOne() {
        var list = HeaderFields(reservingBytes: 64, fields: 4)
        Self.append(&list, ":method", "POST")
        Self.append(&list, "apns-topic", "com.example.app")
        Self.append(&list, "apns-priority", "10")
        let copy = list
        list.removeAll()
        Self.append(&list, ":method", "GET")
        #expect(list.count == 1 && Array(list) == [HeaderField(":method", "GET")])
        #expect(list.firstIndex(of: "apns-topic") == nil && list["apns-priority"] == nil)
        #expect(list.values("apns-topic").isEmpty)
        #expect(copy.count == 3 && copy.value(at: 0) == "POST" && copy.value(at: 2) == "10")
        Self.append(&list, "apns-push-type", "alert")
        #expect(list.count == 2 && list[1] == HeaderField("apns-push-type", "alert"))
    }

    @Test func stringAppendMatchesByteAppend() {
        var a = HeaderFields(), b = HeaderFields()
        a.append(name: "apns-push-type", value: "alert")
        Self.append(&b, "apns-push-type", "alert")
        #expect(Array(a) == Array(b))
        #expect(a.valueEquals(at: 0, "alert") && b.nameEquals(at: 0, "apns-push-type"))
    }

    /// The repeat summary may say "maybe" for distinct names, but never "no" for a repeated one; pseudo-headers
    /// are not regular names, and an emptied list starts over.
    @Test func aRepeatedRegularNameIsAlwaysFlaggedAndAPushsUsualHeadersAreNot() {
        var list = HeaderFields(reservingBytes: 64, fields: 4)
        for name in [":method", ":path", ":scheme", ":authority", "authorization", "apns-topic", "apns-push-type",
                     "apns-priority", "apns-expiration", "apns-id", "content-length", "user-agent"] {
            Self.append(&list, name, "v")
        }
        #expect(!list.mayRepeatRegularName)
        Self.append(&list, ":path", "/again")
        #expect(!list.mayRepeatRegularName)
        Self.append(&list, "apns-topic", "com.example.other")
        #expect(list.mayRepeatRegularName)
        list.removeAll()
        Self.append(&list, "apns-topic", "com.example.app")
        #expect(!list.mayRepeatRegularName)
        // Two distinct names sharing a bit: "maybe" (the validator's test relies on this pair to reach its
        // pairwise comparison).
        Self.append(&list, "content-type", "application/json")
        Self.append(&list, "apns-collapse-id", "c")
        #expect(list.mayRepeatRegularName)
        for length in 1...200 {
            var repeated = HeaderFields()
            let name = String(repeating: "x", count: length - 1) + "y"
            repeated.append(name: name, value: "1")
            repeated.append(name: "apns-topic", value: "t")
            repeated.append(name: name, value: "2")
            #expect(repeated.mayRepeatRegularName, "\(length)-byte name repeated")
        }
    }

    /// The pseudo-header places noted while filling agree with a search, first occurrence winning, and an
    /// emptied list forgets them.
    @Test func pseudoHeaderPlacesAreTheFirstOccurrencesAndResetWithTheList() {
        var list = HeaderFields(reservingBytes: 64, fields: 4)
        Self.append(&list, ":scheme", "https")
        Self.append(&list, ":method", "POST")
        Self.append(&list, ":path", "/3/device/ab")
        Self.append(&list, "path", "not a pseudo-header")
        Self.append(&list, ":authority", "api.push.apple.com")
        Self.append(&list, ":path", "/second")
        #expect(list.methodIndex == 1 && list.pathIndex == 2 && list.authorityIndex == 4)
        #expect(list.pathIndex == list.firstIndex(of: ":path") && list.authorityIndex == list.firstIndex(of: ":authority"))
        #expect(list.value(at: list.pathIndex!) == "/3/device/ab")
        list.removeAll()
        Self.append(&list, ":path", "/x")
        #expect(list.methodIndex == nil && list.pathIndex == 0 && list.authorityIndex == nil)
        #expect(HeaderFields([HeaderField(":method", "GET")]).methodIndex == 0)
    }

    /// The same bytes split into other fields are other fields; a copy compares equal to its source, keeps
    /// its own storage when the source is refilled in place (a pooled stream's list), and reuses it.
    @Test func sameFieldsComparesTheSplitAndACopyOwnsItsBytes() {
        var source = HeaderFields()
        Self.append(&source, "ab", "c")
        var split = HeaderFields()
        Self.append(&split, "a", "bc")
        #expect(!source.sameFields(as: split) && !split.sameFields(as: source))
        var copy = HeaderFields()
        copy.copyFields(of: source)
        #expect(copy.sameFields(as: source))
        source.removeAll()
        Self.append(&source, "ab", "d")
        #expect(!copy.sameFields(as: source))
        #expect(copy.count == 1 && copy[0] == HeaderField("ab", "c"))
        Self.append(&source, ":path", "/3/device/" + String(repeating: "f", count: 64))
        copy.copyFields(of: source)
        #expect(copy.sameFields(as: source) && copy.pathIndex == 1 && copy.value(at: 1).hasSuffix("ffff"))
        copy.copyFields(of: HeaderFields())
        #expect(copy.isEmpty && copy.sameFields(as: HeaderFields()) && copy.pathIndex == nil)
    }

    /// Skipping a field's value compares every other byte: lists differing in that value alone are the same,
    /// a difference anywhere else (another field's value, the skipped value's length) still counts.
    @Test func sameFieldsCanSkipOneValue() {
        func list(_ token: String, topic: String = "com.example.app") -> HeaderFields {
            var l = HeaderFields()
            Self.append(&l, ":method", "POST")
            Self.append(&l, ":path", "/3/device/" + token)
            Self.append(&l, "apns-topic", topic)
            return l
        }
        let a = list(String(repeating: "a", count: 64)), b = list(String(repeating: "b", count: 64))
        #expect(!a.sameFields(as: b) && a.sameFields(as: b, exceptValueOf: a.pathIndex))
        #expect(!a.sameFields(as: list(String(repeating: "b", count: 64), topic: "com.example.apq"), exceptValueOf: a.pathIndex))
        #expect(!a.sameFields(as: list(String(repeating: "a", count: 66)), exceptValueOf: a.pathIndex))
        #expect(a.sameFields(as: list(String(repeating: "a", count: 64)), exceptValueOf: nil))
    }

    /// A response's ids go out "never indexed": the flag rides with its field through a list built from values,
    /// a copy into a reused list that held more fields, and back out as values.
    @Test func neverIndexedFlagsTravelWithTheirFields() {
        let values = [HeaderField("apns-emulator-version", "1"), HeaderField("apns-id", "id-1", neverIndexed: true)]
        let list = HeaderFields(values)
        #expect(!list.isNeverIndexed(at: 0) && list.isNeverIndexed(at: 1))
        #expect(Array(list) == values)
        var reused = HeaderFields()
        Self.append(&reused, "content-type", "application/json")
        Self.append(&reused, "x-long", String(repeating: "y", count: 50))
        Self.append(&reused, "z", "1")
        reused.copyFields(of: list)
        #expect(reused == list && Array(reused) == values)
        reused.append(name: "apns-unique-id", value: "u-1", neverIndexed: true)
        #expect(reused.count == 3 && !reused.isNeverIndexed(at: 0) && reused.isNeverIndexed(at: 1) && reused.isNeverIndexed(at: 2))
    }

    /// Lists are equal when their fields are (names, values, flags, order), wherever the bytes sit: a reused
    /// list that once held longer fields equals a fresh one.
    @Test func equalityComparesFieldsNotStorage() {
        var reused = HeaderFields()
        Self.append(&reused, "apns-collapse-id", String(repeating: "c", count: 40))
        reused.removeAll()
        reused.append(name: "apns-id", value: "id-1", neverIndexed: true)
        let fresh = HeaderFields([HeaderField("apns-id", "id-1", neverIndexed: true)])
        #expect(reused == fresh)
        #expect(reused != HeaderFields([HeaderField("apns-id", "id-1")]))
        #expect(reused != HeaderFields([HeaderField("apns-id", "id-2", neverIndexed: true)]))
        #expect(reused != HeaderFields([HeaderField("apns-ix", "id-1", neverIndexed: true)]))
        #expect(reused != HeaderFields())
    }

    /// A connection's answers all start with the same fields, copied into one reused list before each id: an
    /// earlier answer still holding that list keeps its own fields, and the source is never touched.
    @Test func copyingIntoAReusedListLeavesEarlierCopiesAndTheSourceAlone() {
        let version = HeaderField("apns-emulator-version", "1.0")
        let prefix = HeaderFields([version])
        var fields = HeaderFields()
        fields.copyFields(of: prefix)
        fields.append(name: "apns-id", value: "id-1", neverIndexed: true)
        let first = fields
        fields.copyFields(of: prefix)
        fields.append(name: "apns-id", value: "id-22", neverIndexed: true)
        #expect(Array(first) == [version, HeaderField("apns-id", "id-1", neverIndexed: true)])
        #expect(Array(fields) == [version, HeaderField("apns-id", "id-22", neverIndexed: true)])
        #expect(Array(prefix) == [version])
        fields.copyFields(of: HeaderFields())
        #expect(fields.isEmpty && fields.byteCount == 0 && fields.firstIndex(of: "apns-id") == nil)
    }

    /// Emptying keeps the index's entries for reuse; they are not fields any more.
    @Test func emptiedFieldsAreNotReadBack() {
        var list = HeaderFields([HeaderField("a", "1"), HeaderField("b", "2")])
        list.removeAll()
        Self.append(&list, "c", "3")
        #expect(list.count == 1 && Array(list) == [HeaderField("c", "3")])
        #expect(list.firstIndex(of: "b") == nil && list["b"] == nil && list.values("a").isEmpty)
    }
}
