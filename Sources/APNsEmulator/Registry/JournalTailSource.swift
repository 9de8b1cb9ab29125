import H2Transport

/// The request fields and body the journal's shared tail was written from (see `JournalEntryEncoder`).
///
/// A load test repeats one request, so most entries share the previous entry's tail. Comparing the request
/// with a copy of what that tail was written from (two memory comparisons) tells so before anything is
/// written; writing the tail (redacting the authorization on the way) to compare it afterwards cost several
/// times more. The copy is refreshed only when a tail is written in full, into storage reused each time.
///
/// It holds the request as received, authorization unredacted, in the journal's memory only: nothing reads it
/// but `matches`, and the stored entries keep only the redacted form.
struct JournalTailSource {
    private var headers = H2HeaderList()
    private var body: [UInt8] = []

    /// Whether `headers` and `body` are, byte for byte, what the tail was written from. (Two requests can also
    /// share a tail without this: different tokens with the same header before the redacted dot. The encoder
    /// still finds those by comparing what it wrote.)
    func matches(_ headers: H2HeaderList, _ body: [UInt8]) -> Bool {
        self.headers.sameFields(as: headers) && bytesEqual(self.body, body)
    }

    mutating func record(_ headers: H2HeaderList, _ body: [UInt8]) {
        self.headers.copyFields(of: headers)
        self.body.removeAll(keepingCapacity: true)
        self.body.append(contentsOf: body)
    }
}
