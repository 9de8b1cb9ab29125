import H2Transport

/// Builds every APNs answer in one place: status, `apns-id`, `apns-unique-id` (sandbox), the JSON error body.
public enum APNsResponseBuilder {
    /// 200 with an empty body.
    /// - Parameters:
    ///   - uniqueId: sandbox only: the `apns-unique-id` Apple adds so a delivery can be looked up.
    ///   - extra: headers every response carries (e.g. the emulator version).
    public static func success(apnsId: String, uniqueId: String?, extra: [H2Header]) -> H2Response {
        var fields = H2HeaderList()
        return success(apnsId: apnsId, uniqueId: uniqueId, extra: H2HeaderList(extra), reusing: &fields)
    }

    /// The same answer with its fields written into `fields`, whose storage is reused when nothing else holds
    /// it (a connection keeps one list for all its 200s: no allocation per push). `extra` comes as bytes too, so
    /// no String but the ids is read. The fields move into the response, leaving `fields` empty: a caller that
    /// keeps the storage swaps them back once the response is sent (a copy retained and released both arrays).
    public static func success(apnsId: String, uniqueId: String?, extra: H2HeaderList,
                               reusing fields: inout H2HeaderList) -> H2Response {
        fields.copyFields(of: extra)
        // Ids are unique per response: never worth a slot in the client's HPACK table.
        fields.append(name: "apns-id", value: apnsId, neverIndexed: true)
        if let uniqueId { fields.append(name: "apns-unique-id", value: uniqueId, neverIndexed: true) }
        var response = H2Response(status: 200, fields: H2HeaderList())
        swap(&response.fields, &fields)
        return response
    }

    /// The status of `reason`, `content-type: application/json`, `apns-id`, and `{"reason": ...}` plus
    /// `"timestamp"` for 410 (clients such as apns2-up crash without it).
    /// - Parameter idHeader: `apns-id` for device pushes, `apns-request-id` for broadcasts and channels.
    public static func rejection(_ reason: APNsReason, timestamp: Int64?, apnsId: String, idHeader: String = "apns-id",
                                 policy: ValidationPolicy, extra: H2HeaderList) -> H2Response {
        var fields = extra
        fields.append(name: "content-type", value: "application/json")
        fields.append(name: idHeader, value: apnsId, neverIndexed: true)
        return H2Response(status: reason.status, fields: fields,
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
}
