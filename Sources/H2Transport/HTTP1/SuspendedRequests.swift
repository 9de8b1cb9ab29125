import CMicroHTTPD
import Synchronization

/// Requests answered off libmicrohttpd's polling threads, their connections suspended meanwhile.
///
/// A connection pointer is used only while its entry is `waiting`, under the lock: the answer and the server's
/// stop both resume it there, exactly once, and libmicrohttpd keeps a suspended connection alive until then.
final class SuspendedRequests: Sendable {
    final class Entry: @unchecked Sendable {
        // @unchecked Sendable: `state` is read and written only under `SuspendedRequests.entries`' lock (the
        // polling thread takes the answer after the resume, which happens under that lock too).
        enum State {
            case waiting(OpaquePointer)
            case answered(HTTP1Response)
            case taken
        }
        var state: State

        init(_ connection: OpaquePointer) { state = .waiting(connection) }

        /// The answer, once (nil if there is none yet: the polling thread was called early).
        func takeAnswer() -> HTTP1Response? {
            SuspendedRequests.lock.withLock { _ in
                guard case .answered(let response) = state else { return nil }
                state = .taken
                return response
            }
        }
    }

    /// One lock for every entry: resumes are rare and short.
    static let lock = Mutex<Void>(())
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    /// Most requests waiting at once (each has a thread): past it a waiting request is refused, not queued.
    static let capacity = 256

    /// Parks `connection` until `answer` (or the server's stop) resumes it; nil when `capacity` are waiting.
    func suspend(_ connection: OpaquePointer) -> Entry? {
        let entry = Entry(connection)
        let admitted = entries.withLock { e -> Bool in
            guard e.count < Self.capacity else { return false }
            e[ObjectIdentifier(entry)] = entry
            return true
        }
        guard admitted else { return nil }
        MHD_suspend_connection(connection)
        return entry
    }

    /// The answer is ready: the connection resumes and its polling thread sends it.
    func answer(_ entry: Entry, with response: HTTP1Response) {
        Self.lock.withLock { _ in
            guard case .waiting(let connection) = entry.state else { return }
            entry.state = .answered(response)
            MHD_resume_connection(connection)
        }
        entries.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(entry)) }
    }

    /// Every request still waiting gets `response` now (before the daemon stops).
    func answerAll(_ response: HTTP1Response) {
        for entry in entries.withLock({ Array($0.values) }) { answer(entry, with: response) }
    }
}
