import APNsProtocol
import H2Transport

/// Turns the provider API's answers into transport responses, every one starting with the fields all answers
/// carry (the emulator's version).
///
/// One per connection: its 200s are written into one field list that moves into each response and back once
/// the response is sent (`reclaim`), so an accepted push allocates nothing for its fields.
struct APNsResponseWriter {
    private let extra: H2HeaderList
    private var successFields = H2HeaderList()

    init(extra: H2HeaderList) { self.extra = extra }

    /// `APNsAnswer.success(apnsId:uniqueId:)`, written into the reused list.
    mutating func success(apnsId: String, uniqueId: String?) -> H2Response {
        successFields.copyFields(of: extra)
        successFields.append(name: APNsAnswer.IDHeader.apnsId.rawValue, value: apnsId, neverIndexed: true)
        if let uniqueId { successFields.append(name: "apns-unique-id", value: uniqueId, neverIndexed: true) }
        var response = H2Response(status: 200, fields: H2HeaderList())
        swap(&response.fields, &successFields)
        return response
    }

    /// Takes back the fields of a 200 that went out, for the next one (a delayed answer that still holds them
    /// makes the next write copy first).
    mutating func reclaim(_ response: inout H2Response) {
        swap(&successFields, &response.fields)
    }

    func response(_ answer: APNsAnswer) -> H2Response {
        var fields = extra
        for f in answer.fields { fields.append(name: f.name, value: f.value, neverIndexed: f.neverIndexed) }
        return H2Response(status: answer.status, fields: fields, body: answer.body)
    }
}
