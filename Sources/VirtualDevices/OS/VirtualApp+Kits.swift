import APNsEmulator
import APNsProtocol

/// The managed push SDK's side of the app: what it is handed, and the records and decisions it leaves.
extension VirtualApp {
    /// Hands `input` to the SDK and carries out its actions; returns whether it claimed the notification (and,
    /// for willPresent, whether to show it), nil when it did not.
    mutating func kitsHandle(_ input: KitsSDK.Input, _ ctx: OSContext) -> Bool? {
        guard var sdk = kits else { return nil }
        let actions = sdk.handle(input)
        kits = sdk
        var claimed: Bool?
        for action in actions {
            switch action {
            case .record(let kind, let source, let deliveryId, let token, let actionIdentifier):
                kitsRecords.append(KitsRecord(
                    seq: takeSeq(), at: ctx.now, type: kind, source: source, deviceId: ctx.deviceId, bundleId: bundleId,
                    deliveryId: deliveryId, token: token,
                    environment: kind == .token ? sdk.configuration.apnsEnvironment : nil, actionIdentifier: actionIdentifier))
                Self.trim(&kitsRecords)
            case .decide(let callback, let outcome, let reason):
                kitsDecisions.append(KitsDecision(seq: takeSeq(), at: ctx.now, callback: callback, outcome: outcome,
                                                  reason: reason))
                Self.trim(&kitsDecisions)
            case .claim(let display):
                claimed = display
            }
        }
        return claimed
    }

    /// `Kits.setCollectionEnabled`: the app's code, so the app runs.
    mutating func setKitsCollectionEnabled(_ enabled: Bool, _ ctx: OSContext) throws(DeviceError) {
        guard kits != nil else { throw .noManagedSDK(bundleId) }
        ensureRunning(ctx)
        _ = kitsHandle(.setCollectionEnabled(enabled), ctx)
    }
}
