import StateStore

/// A fault rule that hit a request, as the pipeline and the handler carry it. Immutable, so an answer sent
/// later can share it.
final class FaultHit: Sendable {
    let rule: FaultRule

    init(_ rule: FaultRule) { self.rule = rule }

    var action: FaultAction { rule.action }
    var id: String { rule.id }
}
