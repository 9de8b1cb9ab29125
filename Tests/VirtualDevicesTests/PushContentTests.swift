import Testing

@testable import VirtualDevices

/// `PushContent` keeps its fields behind one shared reference; it must still behave as a value.
@Suite("PushContent value semantics")
struct PushContentTests {
    static let payload = Array(#"{"aps":{"alert":{"title":"T","body":"B"},"badge":3,"thread-id":"room"}}"#.utf8)

    /// What a service extension does: edit a copy of the cached content. The cache's copy must not change.
    @Test func editingACopyLeavesTheOriginalAlone() {
        let original = PushContent(payload: Self.payload)
        var edited = original
        edited.title = "Decrypted"
        edited.badge = nil
        edited.threadId = "other"
        #expect(original.title == "T" && original.badge == 3 && original.threadId == "room")
        #expect(edited.title == "Decrypted" && edited.badge == nil && edited.threadId == "other")
        #expect(edited.body == "B", "fields not edited are kept")
        #expect(edited != original)
    }

    @Test func equalityComparesFieldsNotIdentity() {
        #expect(PushContent(payload: Self.payload) == PushContent(payload: Self.payload))
        var built = PushContent()
        built.title = "T"
        #expect(built != PushContent())
        built.title = ""
        #expect(built == PushContent(), "a content edited back to the defaults equals a fresh one")
        #expect(PushContent().title.isEmpty && PushContent().badge == nil && !PushContent().hasAlert)
    }

    /// Two values sharing one box: writing through each in turn leaves the other as it was.
    @Test func repeatedEditsOfSharedCopiesStayIndependent() {
        var a = PushContent(payload: Self.payload)
        var b = a
        a.body = "A"
        b.body = "b"
        a.body += "!"
        #expect(a.body == "A!" && b.body == "b")
        #expect(a.title == "T" && b.title == "T")
    }
}
