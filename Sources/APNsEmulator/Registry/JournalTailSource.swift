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

    /// Whether `headers` and `body` are, byte for byte, what the tail was written from, but for the `:path`
    /// value, which the entry keeps outside its tail. (Two requests can also share a tail without this: different
    /// tokens with the same header before the redacted dot. The encoder still finds those by comparing what it
    /// wrote.)
    func matches(_ headers: H2HeaderList, _ body: [UInt8]) -> Bool {
        self.headers.sameFieldsExceptPath(as: headers) && bytesEqual(self.body, body)
    }

    /// Whether `headers` has the first `:path` the tail was written from (`matches` leaves it out).
    func samePath(_ headers: H2HeaderList) -> Bool {
        guard let a = self.headers.pathIndex, let b = headers.pathIndex else {
            return self.headers.pathIndex == nil && headers.pathIndex == nil
        }
        return self.headers.withValue(at: a) { x in headers.withValue(at: b) { y in bytesEqual(x, y) } }
    }

    mutating func record(_ headers: H2HeaderList, _ body: [UInt8]) {
        self.headers.copyFields(of: headers)
        self.body.removeAll(keepingCapacity: true)
        self.body.append(contentsOf: body)
    }
}
