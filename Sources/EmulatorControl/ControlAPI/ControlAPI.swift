import APNsEmulator
import Foundation
import Synchronization
import H2Transport

/// The emulator's control API: plain HTTP/1.1 and JSON under `/_emulator/`, served by `HTTP1Server`.
///
/// ### Overview
/// Tests and tools use it to register signing keys and device tokens, read and clear the journal of
/// APNs requests, inject faults, move a manual clock, reset, and export or import the state. The
/// OpenAPI 3.0 description is served at `GET /_emulator/openapi.json`; `ControlAPIDocument` builds it.
///
/// ### Request handling, in order
/// 1. Route: unknown path → 404, known path with another method → 405 with `allow`.
/// 2. Authorize: with a control token, everything but `GET /_emulator/health` needs
///    `Authorization: Bearer <token>` → else 401 (health stays open for Docker's `HEALTHCHECK`).
/// 3. Size: a body the server discarded for its size → 413.
/// 4. Query: endpoints without filters refuse any query parameter → 400.
/// 5. The endpoint reads and validates its whole input before it changes anything (`JSONBodyReader`),
///    so a 400 never leaves a half-applied change; registry or store failures → 500.
///
/// ### Threading
/// `handle` runs on the control port's threads, one call at a time (`serial`), except the settle barrier and
/// the health check. Every registry in `EmulatorServices` also locks itself.
public struct ControlAPI: HTTP1Handler {
    /// The largest body the control port buffers (`HTTP1Server`'s limit), a state snapshot of ~90,000 tokens.
    public static let maxBodyBytes = 16 * 1024 * 1024
    /// The state the endpoints read and change.
    public let services: EmulatorServices
    /// With a shared store: the push hand-over between replicas, for `GET /cluster`.
    let deliveryRouter: ClusterDeliveryRouter?
    /// The bearer token requests must carry (nil: no authentication).
    let controlToken: String?
    /// Endpoints of higher layers (virtual devices), asked for paths the built-in router does not know.
    let extensions: [any EmulatorExtension]
    /// What the APNs listeners' transport refused (header lists, late prefaces, connections over the limit).
    let transportCounters: @Sendable () -> H2ServerCounters
    /// Makes the calls of this API take turns.
    private let serial = ControlAPISerial()
    private let extensionRouter: ControlAPIRouter<ExtensionOperation>
    /// The OpenAPI document including the extensions, serialised once.
    let document: [UInt8]

    /// An extension's operation: which extension, and its `operationId`.
    struct ExtensionOperation: Sendable {
        var index: Int
        var operation: String
    }

    /// Creates the control API over an emulator's services.
    ///
    /// - Parameters:
    ///   - services: The emulator's registries, journal, faults and clock.
    ///   - controlToken: When set (and not empty), every request except `GET /_emulator/health` must
    ///     carry `Authorization: Bearer <controlToken>`.
    public init(services: EmulatorServices, controlToken: String? = nil) {
        self.init(services: services, controlToken: controlToken, extensions: [])
    }

    /// Creates the control API with endpoints of higher layers.
    package init(services: EmulatorServices, controlToken: String?, extensions: [any EmulatorExtension],
                 transportCounters: @escaping @Sendable () -> H2ServerCounters = { H2ServerCounters() },
                 deliveryRouter: ClusterDeliveryRouter? = nil) {
        self.services = services
        self.deliveryRouter = deliveryRouter
        self.transportCounters = transportCounters
        self.controlToken = controlToken.flatMap { $0.isEmpty ? nil : $0 }
        self.extensions = extensions
        self.extensionRouter = ControlAPIRouter(extensions.enumerated().flatMap { index, ext in
            ext.routes.map { ($0.method, $0.pattern, ExtensionOperation(index: index, operation: $0.operation)) }
        })
        self.document = ControlAPIDocument.json(extensions: extensions)
    }

    /// Answers one control request (see the type's overview for the order of checks).
    /// - Parameter request: The request as `HTTP1Server` received it.
    public func handle(_ request: HTTP1Request) -> HTTP1Response {
        // Calls run one at a time, as they always have (several change more than one registry, or read then
        // write): the control port's threads only let a waiting call wait, and the health check answer, meanwhile.
        if takesNoTurn(request) { return unserialisedHandle(request) }
        return serial.lock.withLock { _ in unserialisedHandle(request) }
    }

    /// Calls that may wait (a journal long-poll, an extension's waiting operations such as settle): answered off
    /// the control port's polling threads, so they hold up no other connection.
    public func waits(_ request: HTTP1Request) -> Bool {
        switch Self.router.match(method: request.method, path: request.path) {
        case .found(let operation, _):
            return (operation == .listJournal && request.queryValue("waitSeconds") != nil)
                || Self.operationsAskingReplicas.contains(operation)
        case .methodNotAllowed: return false
        case .notFound:
            guard case .found(let found, _) = extensionRouter.match(method: request.method, path: request.path) else {
                return false
            }
            return extensions[found.index].waitingOperations.contains(found.operation)
        }
    }

    /// Calls that wait on other replicas: they take no turn (each replica asked takes its own, so two replicas
    /// asking each other at once cannot hold each other up).
    static let operationsAskingReplicas: Set<ControlOperation> = [.syncCluster, .findClusterDevice, .listClusterDevices,
                                                                  .readClusterDeviceApp, .listClusterDeliveries]

    /// The health check, the public assets, and the calls that wait (which lock what they read themselves).
    private func takesNoTurn(_ request: HTTP1Request) -> Bool {
        if waits(request) || isPublic(request) { return true }
        if case .found(.health, _) = Self.router.match(method: request.method, path: request.path) { return true }
        return false
    }

    /// An extension's operation that needs no control token (the dashboard's static assets).
    private func isPublic(_ request: HTTP1Request) -> Bool {
        guard case .found(let found, _) = extensionRouter.match(method: request.method, path: request.path) else { return false }
        return extensions[found.index].publicOperations.contains(found.operation)
    }

    private func unserialisedHandle(_ request: HTTP1Request) -> HTTP1Response {
        do {
            return try route(request)
        } catch let error as ControlAPIError {
            return ControlAPIResponse.error(error)
        } catch {
            return ControlAPIResponse.error(.internalFailure("\(error)"))
        }
    }

    private func route(_ request: HTTP1Request) throws -> HTTP1Response {
        let match = Self.router.match(method: request.method, path: request.path)
        let isHealth: Bool
        if case .found(.health, _) = match { isHealth = true } else { isHealth = false }
        if !isHealth {
            try BrowserRequestGuard.check(request, tokenRequired: controlToken != nil)
            if case .notFound = match, isPublic(request) {} else { try authorize(request) }
        }
        switch match {
        case .notFound:
            return try performExtension(request)
        case .methodNotAllowed(let allow):
            throw ControlAPIError.methodNotAllowed(method: request.method, path: request.path, allow: allow)
        case .found(let operation, let parameters):
            if request.bodyExceededLimit { throw ControlAPIError.bodyTooLarge(limitBytes: Self.maxBodyBytes) }
            if !Self.operationsWithQuery.contains(operation) { try QueryReader(request.query).finish() }
            return try perform(operation, ControlRequest(http: request, parameters: parameters))
        }
    }

    /// Routes a request to the extension owning its path, with the same checks as built-in endpoints.
    private func performExtension(_ request: HTTP1Request) throws -> HTTP1Response {
        switch extensionRouter.match(method: request.method, path: request.path) {
        case .notFound:
            throw ControlAPIError.notFound("no such control endpoint: \(request.method) \(request.path)")
        case .methodNotAllowed(let allow):
            throw ControlAPIError.methodNotAllowed(method: request.method, path: request.path, allow: allow)
        case .found(let target, let parameters):
            if request.bodyExceededLimit { throw ControlAPIError.bodyTooLarge(limitBytes: Self.maxBodyBytes) }
            let ext = extensions[target.index]
            if !ext.operationsWithQuery.contains(target.operation) { try QueryReader(request.query).finish() }
            return try ext.perform(target.operation, ControlRequest(http: request, parameters: parameters))
        }
    }

    /// Endpoints that read query parameters themselves; every other one refuses any.
    private static let operationsWithQuery: Set<ControlOperation> = [.listTokens, .listJournal, .countJournal,
                                                                          .listClusterJournal, .syncCluster,
                                                                          .readClusterDeviceApp, .listClusterDeliveries,
                                                                          .listClusterDevices]

    /// Checks `Authorization: Bearer <token>` when a control token is set.
    private func authorize(_ request: HTTP1Request) throws(ControlAPIError) {
        guard let controlToken else { return }
        guard let header = request.header("authorization") else {
            throw .unauthorized(
                "missing 'Authorization: Bearer <token>': this emulator was started with a control token")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw .unauthorized("the Authorization header must be 'Bearer <token>'")
        }
        guard Self.constantTimeEquals(Array(parts[1].utf8), Array(controlToken.utf8)) else {
            throw .unauthorized("wrong control token")
        }
    }

    /// Compares without an early exit, so response timing does not reveal how much of a guess was right.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<max(a.count, b.count) {
            difference |= (i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)
        }
        return difference == 0
    }
}

/// The lock `ControlAPI.handle` takes around a call (a class, so every copy of the API shares it).
final class ControlAPISerial: Sendable {
    let lock = Mutex(())
}
