import APNsProtocol

/// What the provider API decided for one request: the answer, what the journal and metrics record of it,
/// and what the connection must do around the answer. Made by `PushPipeline`, carried out by `APNsHandler`.
struct PushDecision: Sendable {
    enum Answer: Sendable {
        /// 200 to a device push (`uniqueId` in the sandbox).
        case accepted(AcceptedPush, uniqueId: String?)
        /// A rejection, or a broadcast or channel-management answer.
        case answer(APNsAnswer)
        /// An injected fault resets the stream instead of answering.
        case reset
    }

    var answer: Answer
    var environment: APNsEnvironment
    var record: Record
    var effects = Effects()

    /// What the journal and the metrics keep of the answer.
    struct Record: Sendable {
        var status: Int
        /// The reason answered (validation's, a fault's, a limit's or the channel registry's).
        var reason: APNsReason?
        var timestamp: Int64?
        /// The id echoed (`apns-id`, or `apns-request-id` for broadcasts); empty for a reset.
        var id: String
        var uniqueId: String?
        /// What validation read of the request; nil for an accepted push, which carries its own, and a reset.
        var summary: ReadSummary?
        var pushType: PushType?
        var authMode: JournalRecord.AuthMode
        /// The reason, when it was an authentication one.
        var authRejection: APNsReason?
        var faultId: String?
    }

    /// A summary held by reference: the decision is moved through several calls, and a summary inline made it
    /// several hundred bytes to copy each time.
    final class ReadSummary: Sendable {
        let summary: RequestSummary
        init(_ summary: RequestSummary) { self.summary = summary }
    }

    /// What the connection does besides answering, in this order: new SETTINGS, a GOAWAY, the answer (after
    /// `delay`), another GOAWAY.
    struct Effects: Sendable {
        /// MAX_CONCURRENT_STREAMS to advertise before the answer, when it changed.
        var maxConcurrentStreams: Int?
        /// GOAWAY debug data to send before the answer ("GOAWAY after N errors").
        var goAwayBeforeAnswer: [UInt8]?
        /// How long the answer waits (an injected delay plus the shaping latency).
        var delay: Duration = .zero
        /// GOAWAY debug data to send once the answer is on its way (a fault, connection recycling).
        var goAwayAfterAnswer: [UInt8]?
    }
}
