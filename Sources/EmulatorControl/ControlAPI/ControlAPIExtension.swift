import APNsEmulator
import H2Transport

/// Endpoints a higher layer adds to the control API (the virtual devices), routed and documented with
/// the built-in ones.
///
/// ### Why a protocol
/// Layers only know the ones below them: the devices module sits above the emulator, yet its endpoints
/// belong in the same control API and the same OpenAPI document. The emulator therefore defines the
/// slot and the devices fill it. Extension paths must not overlap the built-in ones; the built-in router
/// is asked first and an extension only sees paths it does not know.
package protocol ControlAPIExtension: Sendable {
    /// The extension's routes: method, pattern (as in `ControlAPIRouter`) and OpenAPI `operationId`.
    var routes: [(method: String, pattern: String, operation: String)] { get }
    /// Operations that read query parameters themselves; every other one refuses any.
    var operationsWithQuery: Set<String> { get }
    /// Operations that may wait (the settle barrier): they run outside the turns the other calls take.
    var waitingOperations: Set<String> { get }
    /// Operations served without the control token and outside the turns: static assets that hold no state.
    var publicOperations: Set<String> { get }
    /// Answers one routed request.
    func perform(_ operation: String, _ request: ControlRequest) throws -> HTTP1Response
    /// The OpenAPI fragments describing `routes`.
    var document: ControlAPIDocument.Fragment { get }
}

extension ControlAPIExtension {
    package var waitingOperations: Set<String> { [] }
    package var publicOperations: Set<String> { [] }
}

extension ControlAPIDocument {
    /// What an extension contributes to the document: its tags, operations and component schemas.
    package struct Fragment {
        package var tags: [JSON]
        package var operations: [Operation]
        package var schemas: JSON

        package init(tags: [JSON], operations: [Operation], schemas: JSON) {
            self.tags = tags
            self.operations = operations
            self.schemas = schemas
        }
    }
}
