/// A fault rule that hit a request, as the handler carries it through the request's steps.
///
/// A reference on purpose: the handler hands the fault to validation, the journal and the answer, and an
/// optional `FaultRule` (a hundred bytes of strings and optionals) is copied, tested and destroyed through
/// outlined value witnesses at each step even when it is nil, which is every push of a load test. An optional
/// reference is one pointer test. Immutable, so sharing it across the answer's closure is safe.
final class FaultHit: Sendable {
    let rule: FaultRule

    init(_ rule: FaultRule) { self.rule = rule }

    var action: FaultAction { rule.action }
    var id: String { rule.id }
}
