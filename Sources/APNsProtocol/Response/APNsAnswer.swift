import WireBytes

/// An answer of the provider API as values: its status, the fields to send in order, and the body. Every
/// answer is built here; the emulator turns it into a transport response.
public struct APNsAnswer: Sendable, Equatable {
    /// A field to send (`HeaderField.neverIndexed` for values unique to one message, such as ids).
    public typealias Field = HeaderField

    public var status: Int
    public var fields: [Field]
    public var body: [UInt8]

    public init(status: Int, fields: [Field] = [], body: [UInt8] = []) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// The header that carries the request's id: `apns-id` for device pushes, `apns-request-id` for broadcasts
    /// and channel management.
    public enum IDHeader: String, Sendable {
        case apnsId = "apns-id"
        case requestId = "apns-request-id"
    }

    /// 200 with an empty body: `apns-id`, and in the sandbox the `apns-unique-id` Apple adds so a delivery can
    /// be looked up.
    public static func success(apnsId: String, uniqueId: String?) -> APNsAnswer {
        var fields = [Field(IDHeader.apnsId.rawValue, apnsId, neverIndexed: true)]
        if let uniqueId { fields.append(Field("apns-unique-id", uniqueId, neverIndexed: true)) }
        return APNsAnswer(status: 200, fields: fields)
    }

    /// The status of `reason`, `content-type: application/json`, the id, and `{"reason": ...}` plus
    /// `"timestamp"` for 410 (clients such as apns2-up crash without it).
    public static func rejection(_ reason: APNsReason, timestamp: Int64?, id: String, idHeader: IDHeader = .apnsId,
                                 policy: ValidationPolicy) -> APNsAnswer {
        APNsAnswer(status: reason.status,
                   fields: [Field("content-type", "application/json"), Field(idHeader.rawValue, id, neverIndexed: true)],
                   body: Array(body(reason, timestamp: timestamp, policy: policy).utf8))
    }

    /// The JSON body for a rejection (reason strings are plain ASCII identifiers: no escaping needed).
    public static func body(_ reason: APNsReason, timestamp: Int64?, policy: ValidationPolicy) -> String {
        let wire = policy.wireString(for: reason)
        if reason.carriesTimestamp {
            return #"{"reason":"\#(wire)","timestamp":\#(timestamp ?? 0)}"#
        }
        return #"{"reason":"\#(wire)"}"#
    }

    /// GOAWAY debug data APNs sends when it closes a connection: `{"reason":"..."}`.
    public static func goAwayPayload(_ reason: APNsReason, policy: ValidationPolicy) -> [UInt8] {
        Array(#"{"reason":"\#(policy.wireString(for: reason))"}"#.utf8)
    }

    /// The value of field `name`, if the answer carries one.
    public subscript(name: String) -> String? { fields.first { $0.name == name }?.value }
}
