import H2Transport
import Synchronization

/// A request's answer or, past a deadline, the verdict that none came.
///
/// The client's async `send` resumes only when the stream ends, which a server that never answers never
/// does, and a checked continuation cannot be cancelled; so the callback form is raced against a timer
/// here and whichever comes first resumes, exactly once.
enum ResponseDeadline {
    enum Outcome: Sendable {
        case answered(H2Response)
        case failed(H2ClientError)
        case timedOut
    }

    static func send(_ request: H2Request, on connection: H2ClientConnection, within limit: Duration) async -> Outcome {
        await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            let pending = Pending(continuation)
            connection.send(request) { result in
                switch result {
                case .success(let response): pending.resume(.answered(response))
                case .failure(let error): pending.resume(.failed(error))
                }
            }
            connection.eventLoop.schedule(after: limit) { pending.resume(.timedOut) }
        }
    }

    /// The continuation, taken by the first of the two resumers.
    private final class Pending: Sendable {
        private let slot: Mutex<CheckedContinuation<Outcome, Never>?>

        init(_ continuation: CheckedContinuation<Outcome, Never>) {
            slot = Mutex(continuation)
        }

        func resume(_ outcome: Outcome) {
            slot.withLock { c in
                let taken = c
                c = nil
                return taken
            }?.resume(returning: outcome)
        }
    }
}
