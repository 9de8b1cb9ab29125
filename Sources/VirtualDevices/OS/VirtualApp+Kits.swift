import APNsEmulator
import APNsProtocol

/// The managed push SDK's side of the app: what it is handed, the records it sends its ingest (kept and retried
/// while the ingest is down), and how the host's delegate treats the OS completion handler around it.
extension VirtualApp {
    /// Most records kept for the ingest while it is down (the SDK's store is bounded; the oldest go first).
    static let kitsOutboxCapacity = 1_000
    /// How often kept records are retried.
    static let kitsRetryMillis: Millis = 1_000

    /// Hands `input` to the SDK and carries out its actions; returns whether it claimed the notification (and,
    /// for willPresent, whether the OS shows it), nil when it did not.
    @discardableResult
    mutating func kitsHandle(_ input: KitsSDK.Input, _ ctx: OSContext) -> Bool? {
        guard var sdk = kits else { return nil }
        let actions = sdk.handle(input)
        kits = sdk
        var claimed: Bool?
        for action in actions {
            switch action {
            case .record(var record):
                // The extension already reported this delivery received: willPresent does not again.
                if record.type == .received, let id = record.deliveryId {
                    if record.source == .serviceExtension {
                        kitsExtensionReceipts.append(id)
                        if kitsExtensionReceipts.count > 100 { kitsExtensionReceipts.removeFirst() }
                    } else if kitsExtensionReceipts.contains(id) {
                        continue
                    }
                }
                record.seq = takeSeq()
                record.at = ctx.now
                record.deviceId = ctx.deviceId
                record.bundleId = bundleId
                kitsSend(record, ctx)
            case .decide(let callback, let outcome, let reason):
                kitsDecide(callback, outcome, reason, ctx)
            case .claim(let display):
                claimed = display
            case .banner(let deliveryId, let tracked):
                kitsBanners.removeAll { $0 == deliveryId }
                kitsBanners.append(deliveryId)
                kitsBannerTracked[deliveryId] = tracked
                if kitsBanners.count > 100 { kitsBannerTracked[kitsBanners.removeFirst()] = nil }
            }
        }
        guard let display = claimed else { return nil }
        return kitsCompletion(input, display: display, ctx)
    }

    /// The host's delegate calls the OS completion handler after the SDK's handler: exactly once, or not.
    private mutating func kitsCompletion(_ input: KitsSDK.Input, display: Bool, _ ctx: OSContext) -> Bool {
        guard let mode = kits?.configuration.completionHandler, mode != .once else { return display }
        let callback: String
        switch input {
        case .willPresent: callback = "willPresent"
        default: callback = "didReceiveResponse"
        }
        switch mode {
        case .once:
            return display
        case .twice:
            kitsDecide(callback, .completionHandlerMisused,
                       "the completion handler was called twice: UserNotifications raised an exception and the app crashed", ctx)
            terminate(ctx)
            return display
        case .never:
            if callback == "willPresent" {
                kitsDecide(callback, .completionHandlerMisused, "the completion handler was never called: the OS showed nothing", ctx)
                return false
            }
            kitsDecide(callback, .completionHandlerMisused, "the completion handler was never called: a background app is"
                       + " ended when its background time runs out", ctx)
            if lifecycle == .background { terminate(ctx) }
            return display
        case .late:
            // Held while the app waits for navigation, then called: a foreground presentation comes late but comes;
            // a response held past the background time ends a background app before the call.
            if callback == "willPresent" {
                kitsDecide(callback, .completionHandlerMisused, "the completion handler was held while the app navigated:"
                           + " the notification showed late", ctx)
                return display
            }
            kitsDecide(callback, .completionHandlerMisused, "the completion handler was held while the app navigated: a"
                       + " background app's time ran out first and it was ended", ctx)
            if lifecycle == .background { terminate(ctx) }
            return display
        }
    }

    private mutating func kitsDecide(_ callback: String, _ outcome: KitsDecision.Outcome, _ reason: String, _ ctx: OSContext) {
        kitsDecisions.append(KitsDecision(seq: takeSeq(), at: ctx.now, callback: callback, outcome: outcome, reason: reason))
        Self.trim(&kitsDecisions)
    }

    /// Sends a record to the ingest: taken, refused for good (401/403: dropped, not retried), or kept for a retry
    /// while it is down (tokens always; events when `persistNotificationEvents`).
    private mutating func kitsSend(_ record: KitsRecord, _ ctx: OSContext) {
        var record = record
        record.attempts += 1
        switch ctx.kitsIngestStatus {
        case 200..<300:
            record.ingestedAt = ctx.now
            if record.type == .token { kitsTokenState = "synced" }
            kitsRecords.append(record)
            Self.trim(&kitsRecords)
        case 401, 403:
            if record.type == .token { kitsTokenState = "refused" }
            kitsDecide("ingest", .permanentFailure,
                       "the ingest answered \(ctx.kitsIngestStatus): the \(record.type.rawValue) record is dropped, not retried", ctx)
        default:
            guard record.type == .token || kits?.configuration.persistNotificationEvents == true else {
                kitsDecide("ingest", .lost, "the ingest answered \(ctx.kitsIngestStatus) and persistNotificationEvents is"
                           + " false: the \(record.type.rawValue) record is lost", ctx)
                return
            }
            if record.type == .token { kitsTokenState = "queued" }
            kitsOutbox.append(record)
            if kitsOutbox.count > Self.kitsOutboxCapacity {
                let dropped = kitsOutbox.removeFirst()
                kitsDecide("ingest", .lost, "the SDK's store is full (\(Self.kitsOutboxCapacity) records): the oldest,"
                           + " a \(dropped.type.rawValue), is dropped", ctx)
            }
            kitsNextRetryAt = ctx.now + Self.kitsRetryMillis
            kitsDecide("ingest", .queued, "the ingest answered \(ctx.kitsIngestStatus): the \(record.type.rawValue) record is"
                       + " kept and retried", ctx)
        }
    }

    /// Time passed: kept records are tried again, at most once a second, while the app runs (and at each launch).
    mutating func retryKitsOutbox(_ ctx: OSContext, now: Bool = false) {
        guard !kitsOutbox.isEmpty, process.isRunning, now || ctx.now >= kitsNextRetryAt else { return }
        let pending = kitsOutbox
        kitsOutbox.removeAll()
        for record in pending {
            switch ctx.kitsIngestStatus {
            case 200..<300, 401, 403:
                kitsSend(record, ctx)
            default:
                var kept = record
                kept.attempts += 1
                kitsOutbox.append(kept)
            }
        }
        kitsNextRetryAt = ctx.now + Self.kitsRetryMillis
    }

    /// `syncStates()`: `queued` while the latest token waits for the ingest, `synced` once it took it, `refused`
    /// when it answered 401/403.
    var kitsSyncState: String { kitsTokenState }

    /// The user opened the app (not a launch in the background, not a plugin call): the SDK's session starts.
    mutating func kitsForegroundEntered(_ ctx: OSContext) {
        // A plugin call's launch put the app in the foreground without a session: the user's next entry starts one.
        guard let sdk = kits, !sdk.inSession, lifecycle == .foreground else { return }
        kitsHandle(.foregroundEntered(at: ctx.now), ctx)
    }

    mutating func kitsForegroundLeft(_ ctx: OSContext) {
        guard let sdk = kits, sdk.inSession, lifecycle != .foreground else { return }
        kitsHandle(.foregroundLeft(at: ctx.now), ctx)
    }

    /// `Kits.setCollectionEnabled`: the app's code, so the app runs.
    mutating func setKitsCollectionEnabled(_ enabled: Bool, _ ctx: OSContext) throws(DeviceError) {
        guard kits != nil else { throw .noManagedSDK(bundleId) }
        ensureRunning(ctx)
        kitsHandle(.setCollectionEnabled(enabled), ctx)
    }

    /// The user really clicks the app's own banner for a delivery (`event.recordClick()`; the newest by default).
    mutating func kitsBannerClicked(_ deliveryId: String?, _ ctx: OSContext) throws(DeviceError) {
        guard kits != nil else { throw .noManagedSDK(bundleId) }
        guard let id = deliveryId ?? kitsBanners.last, let tracked = kitsBannerTracked[id] else {
            throw .noBanner(deliveryId ?? "")
        }
        // One banner, one click: it goes once clicked.
        kitsBanners.removeAll { $0 == id }
        kitsBannerTracked[id] = nil
        kitsHandle(.bannerClicked(deliveryId: id, tracked: tracked), ctx)
    }
}
