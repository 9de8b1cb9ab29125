import H2Transport
import WireBytes

/// The request fields and body the journal's shared tail was written from (see `JournalEntryEncoder`).
///
/// A load test repeats one request, so most entries share the previous entry's tail. Comparing the request
/// with a copy of what that tail was written from (two memory comparisons) tells so before anything is
/// written; writing the tail (redacting the authorization on the way) to compare it afterwards cost several
/// times more. The copy is refreshed only when a tail is written in full, into storage reused each time.
///
/// It holds the request as received, authorization unredacted, in the journal's memory only: nothing reads it
/// but `match`, and the stored entries keep only the redacted form.
struct JournalTailSource {
    private var headers = H2HeaderList()
    private var body: [UInt8] = []

    /// How a request compares with what the tail was written from.
    enum Match {
        /// It differs: the tail is written whole (and compared with the previous one once written).
        case different
        /// Byte for byte the same request: the entry points back at the tail.
        case whole
        /// The same but for its first `:path` (one request to many tokens): the entry points back at the tail
        /// and keeps its own path.
        case allButPath
    }

    func match(_ headers: H2HeaderList, _ body: [UInt8]) -> Match {
        let path = self.headers.pathIndex
        guard bytesEqual(self.body, body), self.headers.sameFields(as: headers, exceptValueOf: path) else { return .different }
        // The same fields, so `path` is also where `headers` has its first `:path`.
        guard let path else { return .whole }
        return self.headers.withValue(at: path) { a in headers.withValue(at: path) { b in bytesEqual(a, b) } }
            ? .whole : .allButPath
    }

    mutating func record(_ headers: H2HeaderList, _ body: [UInt8]) {
        self.headers.copyFields(of: headers)
        self.body.removeAll(keepingCapacity: true)
        self.body.append(contentsOf: body)
    }
}
