import APNsEmulator
import H2Transport

/// Every control endpoint, by the name the OpenAPI document gives it as `operationId`.
enum ControlOperation: String, CaseIterable, Sendable {
    case health, openAPI, endpoints
    case listKeys, createKey, getKey, deleteKey
    case listTokens, createToken, createTokens, getToken, deleteToken, unregisterToken, expireToken
    case listJournal, countJournal, clearJournal, getJournalSettings, updateJournalSettings
    case listFaults, createFault, getFault, deleteFault, deleteAllFaults
    case reset, exportState, importState
    case getClock, advanceClock, freezeClock, resumeClock
    case metrics, stats, getShaping, updateShaping
    case getCluster, syncCluster, findClusterDevice, listClusterJournal, countClusterJournal, clearClusterJournal
    case listClusterDevices, readClusterDeviceApp, listClusterDeliveries
}

extension ControlAPI {
    /// The reserved prefix every control path lives under (LocalStack's `/_localstack/`, WireMock's `/__admin/`).
    public static let pathPrefix = "/_emulator"

    /// The route table: the single list of what the control API answers. The OpenAPI document must
    /// describe exactly these (a test holds both to each other).
    static let router = ControlAPIRouter<ControlOperation>([
        ("GET", "/_emulator/health", .health),
        ("GET", "/_emulator/openapi.json", .openAPI),
        ("GET", "/_emulator/endpoints", .endpoints),

        ("GET", "/_emulator/keys", .listKeys),
        ("POST", "/_emulator/keys", .createKey),
        ("GET", "/_emulator/keys/{keyId}", .getKey),
        ("DELETE", "/_emulator/keys/{keyId}", .deleteKey),

        ("GET", "/_emulator/tokens", .listTokens),
        ("POST", "/_emulator/tokens", .createToken),
        ("POST", "/_emulator/tokens:batch", .createTokens),
        ("GET", "/_emulator/tokens/{token}", .getToken),
        ("DELETE", "/_emulator/tokens/{token}", .deleteToken),
        ("POST", "/_emulator/tokens/{token}/unregister", .unregisterToken),
        ("POST", "/_emulator/tokens/{token}/expire", .expireToken),

        ("GET", "/_emulator/journal", .listJournal),
        ("DELETE", "/_emulator/journal", .clearJournal),
        ("GET", "/_emulator/journal/count", .countJournal),
        ("GET", "/_emulator/journal/settings", .getJournalSettings),
        ("PUT", "/_emulator/journal/settings", .updateJournalSettings),

        ("GET", "/_emulator/faults", .listFaults),
        ("POST", "/_emulator/faults", .createFault),
        ("DELETE", "/_emulator/faults", .deleteAllFaults),
        ("GET", "/_emulator/faults/{id}", .getFault),
        ("DELETE", "/_emulator/faults/{id}", .deleteFault),

        ("POST", "/_emulator/reset", .reset),
        ("GET", "/_emulator/state", .exportState),
        ("PUT", "/_emulator/state", .importState),

        ("GET", "/_emulator/clock", .getClock),
        ("POST", "/_emulator/clock/advance", .advanceClock),
        ("POST", "/_emulator/clock/freeze", .freezeClock),
        ("POST", "/_emulator/clock/resume", .resumeClock),

        ("GET", "/metrics", .metrics),
        ("GET", "/_emulator/stats", .stats),
        ("GET", "/_emulator/shaping", .getShaping),
        ("PUT", "/_emulator/shaping", .updateShaping),

        ("GET", "/_emulator/cluster", .getCluster),
        ("POST", "/_emulator/cluster/sync", .syncCluster),
        ("GET", "/_emulator/cluster/devices", .listClusterDevices),
        ("GET", "/_emulator/cluster/devices/{deviceId}", .findClusterDevice),
        ("GET", "/_emulator/cluster/devices/{deviceId}/apps/{bundleId}/{view}", .readClusterDeviceApp),
        ("GET", "/_emulator/cluster/deliveries", .listClusterDeliveries),
        ("GET", "/_emulator/cluster/journal", .listClusterJournal),
        ("DELETE", "/_emulator/cluster/journal", .clearClusterJournal),
        ("GET", "/_emulator/cluster/journal/count", .countClusterJournal),
    ])

    /// Runs the operation's handler; each lives in the file of its resource group (`ControlAPI+Keys.swift`…).
    func perform(_ operation: ControlOperation, _ request: ControlRequest) throws -> HTTP1Response {
        switch operation {
        case .health: return health(request)
        case .openAPI: return openAPI(request)
        case .endpoints: return try endpoints(request)
        case .listKeys: return try listKeys(request)
        case .createKey: return try createKey(request)
        case .getKey: return try getKey(request)
        case .deleteKey: return try deleteKey(request)
        case .listTokens: return try listTokens(request)
        case .createToken: return try createToken(request)
        case .createTokens: return try createTokens(request)
        case .getToken: return try getToken(request)
        case .deleteToken: return try deleteToken(request)
        case .unregisterToken: return try unregisterToken(request)
        case .expireToken: return try expireToken(request)
        case .listJournal: return try listJournal(request)
        case .countJournal: return try countJournal(request)
        case .clearJournal: return try clearJournal(request)
        case .getJournalSettings: return try getJournalSettings(request)
        case .updateJournalSettings: return try updateJournalSettings(request)
        case .listFaults: return try listFaults(request)
        case .createFault: return try createFault(request)
        case .getFault: return try getFault(request)
        case .deleteFault: return try deleteFault(request)
        case .deleteAllFaults: return try deleteAllFaults(request)
        case .reset: return try reset(request)
        case .exportState: return try exportState(request)
        case .importState: return try importState(request)
        case .getClock: return try getClock(request)
        case .advanceClock: return try advanceClock(request)
        case .freezeClock: return try freezeClock(request, frozen: true)
        case .resumeClock: return try freezeClock(request, frozen: false)
        case .metrics: return try metrics(request)
        case .stats: return try stats(request)
        case .getShaping: return try getShaping(request)
        case .updateShaping: return try updateShaping(request)
        case .getCluster: return try getCluster(request)
        case .syncCluster: return try syncCluster(request)
        case .findClusterDevice: return try findClusterDevice(request)
        case .listClusterJournal: return try listClusterJournal(request)
        case .countClusterJournal: return try countClusterJournal(request)
        case .clearClusterJournal: return try clearClusterJournal(request)
        case .listClusterDevices: return try listClusterDevices(request)
        case .readClusterDeviceApp: return try readClusterDeviceApp(request)
        case .listClusterDeliveries: return try listClusterDeliveries(request)
        }
    }
}
