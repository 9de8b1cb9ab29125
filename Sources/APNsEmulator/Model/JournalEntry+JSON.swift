extension JournalEntry {
    /// This entry as the control API's `JSONEncoder` writes it (sorted keys, nil fields left out), without the
    /// `Encodable` machinery, which a large journal read would spend most of its time in. A test compares the two
    /// byte for byte, and another fails when a field of `JournalEntry` is not written here.
    package func writeJSON(to w: inout CompactJSONWriter) {
        w.beginObject()
        w.field("apnsId", apnsId)
        w.field("apnsUniqueId", apnsUniqueId)
        w.field("authMode", authMode)
        w.field("authOutcome", authOutcome)
        w.field("collapseId", collapseId)
        w.field("connectionId", connectionId)
        w.field("durationMicros", durationMicros)
        w.field("environment", environment.rawValue)
        w.field("expiration", expiration)
        w.field("faultId", faultId)
        w.key("headers")
        w.beginArray()
        for pair in headers {
            w.beginArray()
            for part in pair { w.value(part) }
            w.endArray()
        }
        w.endArray()
        w.field("id", id)
        w.field("keyId", keyId)
        w.field("method", method)
        w.field("path", path)
        w.field("payload", payload)
        w.field("priority", priority)
        w.field("pushType", pushType)
        w.field("reason", reason)
        w.field("receivedAt", receivedAt)
        w.field("status", status)
        w.field("teamId", teamId)
        w.field("timestamp", timestamp)
        w.field("token", token)
        w.field("topic", topic)
        w.field("warnings", warnings)
        w.endObject()
    }

    /// `{"entries":[…]}`, the journal listing's answer.
    package static func listingJSON(_ entries: [JournalEntry]) -> [UInt8] {
        // ~1 KB an entry with a small payload; the array grows past it as needed.
        var w = CompactJSONWriter(reservingCapacity: 16 + entries.count * 1024)
        w.beginObject()
        w.key("entries")
        w.beginArray()
        for e in entries { e.writeJSON(to: &w) }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}
