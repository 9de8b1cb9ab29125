import APNsEmulator
import APNsProtocol
import Dispatch
import Foundation
import EmulatorControl
import H2Transport
import Synchronization
import WireBytes

/// Every virtual device of a running emulator, APNs' holding queue in front of them, and the record of each
/// push's fate.
///
/// ### Overview
/// The devices are spread over shards (`DeviceShard`; which one by `DeviceShards`): a push goes to the shard its
/// token names. Accepted pushes arrive from the APNs handler (`accept`, on an event loop). On the real clock
/// they go through the shard's `DeliveryEngine`, which hands them to the devices on its own queue after the 200 has gone
/// (after a delivery latency, if one is set); on a manual clock they reach the devices as they are
/// accepted, so a scenario's next step sees them. If the token belongs to a device's app the push reaches
/// the app's OS model, at once when the `DeliveryQueue` would hand it straight over (online device, no
/// deferral) and through it otherwise (offline storage, deferral, expiry). What happens to each push is
/// recorded as it happens in the fate log (`FateRecorder`). The control API drives devices, apps, plugin
/// calls and user actions. Time is the emulator's clock: a manual clock's advances arrive through
/// `clockAdvanced`, and a timer ticks every 250 ms for real time.
///
/// ### Threading
/// Each shard's `Mutex` guards its devices, its queue and its fates; its delivery engine takes it once per
/// batch of pushes, the control API once per call on one of its devices (listings take each shard's in turn,
/// never two at once). The one kind of I/O under it is the token registry's store write when a device
/// registers or an app is uninstalled (SQLite with `--state-dir`, nothing with `--ephemeral`): control-driven
/// and rare. The registry's own lock, and the shared files', are always taken inside a shard's, never around
/// it. While no device owns any token, an accepted push costs one atomic load (`ownedTokenCount`).
public final class DeviceFarm: DeliverySink {
    let services: EmulatorServices
    /// Which shard holds which device and token.
    let spread: DeviceShards
    let shards: [DeviceShard]
    /// How many tokens map to an installed app (the hot path's "any device at all?" check).
    private let ownedTokenCount = Atomic<Int>(0)
    /// The next `device-N` id.
    let deviceNumbers = Atomic<Int>(1)
    /// What the managed push SDK's ingest answers (`PUT /_emulator/sdk/ingest`): 200, or a failure to simulate.
    public let kitsIngestStatus = Atomic<Int>(200)
    /// Orders devices by creation across shards.
    let creationNumbers = Atomic<Int>(0)
    private let timer: Mutex<DispatchSourceTimer?> = Mutex(nil)
    /// Uploaded files, shared by every shard's service extensions.
    let files = SharedFiles()
    /// Orders fates across shards.
    let fateSequence = FateSequence()
    /// Fates kept, over all shards (each keeps its share, oldest dropped first).
    static let fateCapacity = 100_000

    /// - Parameters:
    ///   - lowPriorityDelayMillis: how long APNs holds priority 5 and 1 pushes to online devices.
    ///   - deliveryLatency: time from acceptance to arrival, drawn per push (real clock only).
    ///   - shards: how many independent parts (each its own lock and delivery engine) the devices are spread over.
    public init(services: EmulatorServices, lowPriorityDelayMillis: Millis = 0,
                deliveryLatency: ShapingSettings.Latency = .none, shards: Int? = nil) {
        self.services = services
        let spread = shards.map(DeviceShards.init(count:))
            ?? DeviceShards.forThisMachine(cores: ProcessInfo.processInfo.activeProcessorCount)
        self.spread = spread
        let synchronous = services.clock is ManualClock
        let files = self.files, sequence = self.fateSequence
        self.shards = (0..<spread.count).map { i in
            DeviceShard(
                index: i,
                store: DeviceStore(queue: DeliveryQueue(lowPriorityDelayMillis: lowPriorityDelayMillis),
                                   registrar: RegistryTokenRegistrar(tokens: services.tokens, shard: i, of: spread),
                                   files: files, fates: FateRecorder(capacity: Self.fateCapacity / spread.count, sequence: sequence)),
                engine: synchronous ? nil : DeliveryEngine(shard: i, latency: deliveryLatency, clock: services.clock))
        }
        for shard in self.shards { shard.engine?.connect(self) }
    }

    /// The shard holding device `id` (whether or not it exists).
    func shard(ofDevice id: String) -> DeviceShard { shards[spread.shard(ofDevice: id)] }

    /// Starts the real-time tick (deferred pushes, expirations, background budget).
    public func startTimer() {
        timer.withLock { slot in
            guard slot == nil else { return }
            let t = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "apns-emulator.devices.tick"))
            t.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
            t.setEventHandler { [weak self] in self?.tick() }
            t.resume()
            slot = t
        }
    }

    // MARK: Pushes

    /// An accepted push (on an event loop): on its way to the device that owns its token, if one does.
    /// - Parameter readAt: when its request was read (monotonic ns): the delivery latency is counted from there.
    public func accept(_ push: AcceptedPush, now: Millis, readAt: UInt64) {
        guard ownedTokenCount.load(ordering: .relaxed) > 0 else { return }
        let shard = shards[spread.shard(ofToken: push.token)]
        if let engine = shard.engine {
            engine.enqueue(push, acceptedAt: now, readAt: readAt)
        } else {
            shard.state.withLock { s in
                if let owner = s.owners[TokenKey(push.token)] { deliver(push, acceptedAt: now, now: now, owner: owner, in: &s) }
            }
        }
    }

    /// Waits until every push accepted before the call has been recorded on its device (at once on a manual
    /// clock); false if `timeout` passed first.
    public func settle(timeout: Duration = .seconds(30)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        // Every shard's mark is taken before any wait, so pushes accepted meanwhile are not waited for.
        let marks = shards.map { $0.engine?.acceptedSoFar() }
        for (shard, mark) in zip(shards, marks) {
            guard let engine = shard.engine, let mark else { continue }
            guard engine.settle(upTo: mark, timeout: max(.zero, deadline - ContinuousClock.now)) else { return false }
        }
        return true
    }

    /// Pushes accepted and not yet recorded on their devices, over all shards.
    var inFlight: UInt64 { shards.reduce(0) { $0 + ($1.engine?.inFlight ?? 0) } }

    /// A batch from a shard's delivery engine, under that shard's lock.
    func deliver(_ arrivals: ArraySlice<DeliveryArrival>, shard: Int) {
        shards[shard].state.withLock { s in
            var next = arrivals.startIndex
            while next < arrivals.endIndex { next = deliverRun(arrivals, from: next, in: &s) }
        }
    }

    /// Delivers the push at `start` if a device owns its token, with the pushes right after it that go to the same
    /// app at once, in one visit of the app (a sender's burst to one device arrives as such a run); returns where the
    /// next run starts. Order is kept: a run is consecutive, and it ends at a push that changed the app's token.
    private func deliverRun(_ arrivals: ArraySlice<DeliveryArrival>, from start: Int, in s: inout DeviceStore) -> Int {
        let first = arrivals[start]
        guard let owner = s.owners[TokenKey(first.push.token)] else { return start + 1 }
        guard s.queue.deliversAtOnce(priority: first.push.priority, online: owner.online) else {
            deliver(first.push, acceptedAt: first.acceptedAt, now: first.arrivesAt, owner: owner, in: &s)
            return start + 1
        }
        var end = start + 1
        while end < arrivals.endIndex, arrivals[end].push.token == first.push.token,
              s.queue.deliversAtOnce(priority: arrivals[end].push.priority, online: owner.online) {
            end += 1
        }
        // Moved out for the run: the app is reached through `s` meanwhile.
        var payloads = PayloadCache()
        swap(&payloads, &s.payloads)
        var delivered = start
        _ = try? withApp(&s, owner.deviceId, owner.bundleId, now: first.arrivesAt) { app, ctx in
            while delivered < end {
                let arrival = arrivals[delivered]
                let push = QueuedPush(arrival.push, acceptedAt: arrival.acceptedAt)
                ctx.now = arrival.arrivesAt
                app.receive(push, content: payloads.content(of: push.payload), ctx)
                delivered += 1
                // The pushes after one that changed the token are owned anew.
                if app.tokenBefore != nil { break }
            }
        }
        swap(&payloads, &s.payloads)
        guard delivered == start else { return delivered }
        // No such app any more: `hand` records each push as dropped.
        for arrival in arrivals[start..<end] {
            hand(QueuedPush(arrival.push, acceptedAt: arrival.acceptedAt), owner: owner, to: &s, now: arrival.arrivesAt)
        }
        return end
    }

    /// A push reaching APNs' delivery at `now` (its acceptance plus any delivery latency) for the app `owner`:
    /// delivered, held or dropped per APNs semantics.
    private func deliver(_ accepted: AcceptedPush, acceptedAt: Millis, now: Millis, owner: TokenOwner, in s: inout DeviceStore) {
        let push = QueuedPush(accepted, acceptedAt: acceptedAt)
        if s.queue.deliversAtOnce(priority: push.priority, online: owner.online) {
            hand(push, owner: owner, to: &s, now: now)
            return
        }
        var actions: [DeliveryQueue.Action] = []
        if let due = s.queue.acceptForDelivery(push, online: owner.online, now: now, into: &actions) {
            hand(due, owner: owner, to: &s, now: now)
        }
        apply(actions, to: &s, now: now)
    }

    /// Runs due timers: deferred pushes, stored pushes expiring, background pushes held by the budget.
    public func tick() {
        let now = services.clock.now()
        for shard in shards { shard.state.withLock { s in tick(&s, now: now) } }
    }

    private func tick(_ s: inout DeviceStore, now: Millis) {
        let actions: [DeliveryQueue.Action]
        do {
            // The owners map, not `s`, is captured: the queue is mutated while the closure runs. Scoped so the
            // copy is gone before `apply` changes the map (no copy-on-write of the whole dictionary).
            let owners = s.owners
            let online = { (token: String) -> Bool in owners[TokenKey(token)]?.online ?? false }
            actions = s.queue.tick(now: now, isOnline: online)
        }
        apply(actions, to: &s, now: now)
        // Sorted so a tick always visits them in the same order; `withApp` updates the set as each one runs.
        let due = s.ticking.sorted { ($0.deviceId, $0.bundleId) < ($1.deviceId, $1.bundleId) }
        for install in due {
            let stillDue = (try? withApp(&s, install.deviceId, install.bundleId, now: now) { app, ctx in
                app.releaseHeldBackgroundPush(ctx)
                app.releaseDueForwards(ctx)
                app.advanceExtensions(ctx)
                app.retryKitsOutbox(ctx)
                return app.hasTimedWork
            }) ?? false
            // Gone, or an install made since with the same ids and nothing due.
            if !stillDue { s.ticking.remove(install) }
        }
    }

    /// Carries out the queue's decisions, recording each as a fate.
    func apply(_ actions: [DeliveryQueue.Action], to s: inout DeviceStore, now: Millis) {
        for action in actions {
            switch action {
            case .deliver(let push):
                hand(push, owner: s.owners[TokenKey(push.token)], to: &s, now: now)
            case .store(let push):
                record(push, .stored, .storedOffline, "the device is offline: APNs holds the newest push per app", s, now)
            case .defer(let push, let until):
                record(push, .deferred, .priorityDelay, "priority \(push.priority): APNs delays delivery until \(until)", s, now)
            case .coalesce(let push, let newer):
                record(push, .coalesced, .replacedWhileOffline, "replaced by the newer push \(newer) while the device was offline", s, now)
            case .expire(let push, let why):
                let code: FateCode = switch why {
                case .whileOffline: .expiredWhileOffline
                case .zeroExpirationOffline: .expirationZero
                case .expirationPassed: .expirationPassed
                }
                record(push, .expired, code, why.text, s, now)
            }
        }
    }

    /// Hands a push to the app that owns its token (`owner`, as the caller looked it up); the app records its
    /// fates.
    private func hand(_ push: QueuedPush, owner: TokenOwner?, to s: inout DeviceStore, now: Millis) {
        var reached = false
        if let owner {
            let content = s.payloads.content(of: push.payload)
            reached = (try? withApp(&s, owner.deviceId, owner.bundleId, now: now) { app, ctx in
                app.receive(push, content: content, ctx)
            }) != nil
        }
        if !reached { record(push, .dropped, .notInstalled, "the app is no longer installed", s, now) }
    }

    /// Records a fate the farm decided (the queue's, or a push no app could take).
    private func record(_ push: QueuedPush, _ kind: PushFate.Kind, _ code: FateCode, _ reason: String,
                        _ s: borrowing DeviceStore, _ now: Millis) {
        s.fates.record(PushFate(apnsId: push.apnsId, deviceId: s.owners[TokenKey(push.token)]?.deviceId ?? "",
                                bundleId: push.bundleId, token: push.token, fate: kind, code: code, reason: reason, at: now))
    }

    // MARK: Running app operations

    /// Runs `body` on an installed app with its OS context, then keeps the token→owner map in step with
    /// the app's token (registration may have issued one, uninstall or restore may have ended one).
    ///
    /// The app is mutated in place through the dictionaries' value positions, so it is never copied and its
    /// arrays stay uniquely referenced (appends do not copy them).
    ///
    /// The body may move the context's clock on (a run of pushes in one visit); a token the app changed is stamped
    /// with the context's time when the body ends.
    @discardableResult
    func withApp<T>(_ s: inout DeviceStore, _ deviceId: String, _ bundleId: String, now: Millis,
                    _ body: (inout VirtualApp, inout OSContext) throws(DeviceError) -> T) throws(DeviceError) -> T {
        guard let d = s.devices.index(forKey: deviceId) else { throw .deviceNotFound(deviceId) }
        let files = s.files
        let fates = s.fates
        let registrar = s.registrar
        // Results land in locals rather than a returned tuple: a generic tuple of `Result` and two tokens was
        // copied through value witnesses on every push.
        var value: T?
        var failure: DeviceError?
        var tokenBefore: String??
        var tokenAfter: String?
        var deviceOnline = false
        var endedAt = now
        var tickChanged = false
        var ticking = false
        // Everything is read through the `inout` of each value position: a read through the dictionaries'
        // getters (`s.devices.values[d].configuration`) copies the whole device out first.
        Self.update(&s.devices.values[d]) { device in
            guard let a = device.apps.index(forKey: bundleId) else {
                failure = .appNotInstalled(device: deviceId, bundleId: bundleId)
                return
            }
            var ctx = OSContext(deviceId: deviceId, platform: device.configuration.platform,
                                online: device.configuration.online, now: now,
                                backgroundBudgetPerHour: device.configuration.backgroundBudgetPerHour,
                                registrar: registrar, files: files, fates: fates)
            ctx.kitsIngestStatus = kitsIngestStatus.load(ordering: .relaxed)
            ctx.focus = device.configuration.focus
            ctx.muted = device.configuration.muted
            deviceOnline = device.configuration.online
            Self.update(&device.apps.values[a]) { app in
                do throws(DeviceError) { value = try body(&app, &ctx) } catch { failure = error }
                endedAt = ctx.now
                let needsTick = app.hasTimedWork
                if needsTick != app.ticking {
                    app.ticking = needsTick
                    tickChanged = true
                }
                ticking = needsTick
                if let before = app.tokenBefore {
                    app.tokenBefore = nil
                    tokenBefore = before
                    tokenAfter = app.token
                }
            }
        }
        if tickChanged {
            let key = InstallKey(deviceId: deviceId, bundleId: bundleId)
            if ticking { s.ticking.insert(key) } else { s.ticking.remove(key) }
        }
        if let before = tokenBefore, before != tokenAfter {
            if let before { unown(before, in: &s, now: endedAt) }
            if let tokenAfter {
                own(tokenAfter, TokenOwner(deviceId: deviceId, bundleId: bundleId, online: deviceOnline), in: &s)
            }
        }
        if let failure { throw failure }
        return value!
    }

    /// `body(&value)`: gives a closure the `inout` of a storage position (a dictionary's value slot), so
    /// what it reads there is read in place.
    @inline(__always)
    static func update<V, R>(_ value: inout V, _ body: (inout V) -> R) -> R {
        body(&value)
    }

    func own(_ token: String, _ owner: TokenOwner, in s: inout DeviceStore) {
        if s.setOwner(owner, for: TokenKey(token)) { ownedTokenCount.add(1, ordering: .relaxed) }
    }

    /// The token left its install: what APNs held for it is dropped (and recorded so). Called by `withApp`
    /// after the app's operation (a run of pushes ends at one that changed the token), so these drops follow whatever the app itself recorded (an uninstall records
    /// the push the device held for it first, then those APNs held).
    func unown(_ token: String, in s: inout DeviceStore, now: Millis) {
        let owner = s.removeOwner(of: TokenKey(token))
        if owner != nil { ownedTokenCount.subtract(1, ordering: .relaxed) }
        for push in s.queue.forget(token: token) {
            s.fates.record(PushFate(
                apnsId: push.apnsId, deviceId: owner?.deviceId ?? "", bundleId: push.bundleId, token: token,
                fate: .dropped, code: .tokenEnded, reason: "the token's install ended (uninstall, restore or device removed) while APNs"
                    + " held the push", at: now))
        }
    }

    /// Stops the timers.
    public func stop() {
        timer.withLock { t in
            t?.cancel()
            t = nil
        }
        for shard in shards { shard.engine?.stop() }
    }

    /// Forgets every device, held push, fate and uploaded file (and the pushes on their way to a device).
    public func removeAll() {
        for shard in shards {
            shard.engine?.discardPending()
            shard.state.withLock { s in
                ownedTokenCount.subtract(s.owners.count, ordering: .relaxed)
                s = DeviceStore(queue: DeliveryQueue(lowPriorityDelayMillis: s.queue.lowPriorityDelayMillis),
                                registrar: s.registrar, files: files,
                                fates: FateRecorder(capacity: Self.fateCapacity / spread.count, sequence: fateSequence))
            }
        }
        files.removeAll()
        deviceNumbers.store(1, ordering: .relaxed)
    }

    /// Fate steps recorded since start, over all shards (for `/metrics`).
    func fateCounts() -> FateCounts {
        shards.reduce(into: FateCounts()) { total, shard in total.add(shard.state.withLock { $0.fates.counts }) }
    }

    /// Virtual devices, over all shards.
    var deviceCount: Int { shards.reduce(0) { $0 + $1.state.withLock { $0.devices.count } } }

    /// Up to `limit` of the devices' ids, over all shards (which ones, beyond the limit, is arbitrary): what a
    /// replica's report lists each second, without walking 100,000 devices to do it.
    func deviceIds(limit: Int) -> [String] {
        var ids: [String] = []
        for shard in shards where ids.count < limit {
            ids += shard.state.withLock { Array($0.devices.keys.prefix(limit - ids.count)) }
        }
        return ids
    }

    /// Delivery latency over all shards' engines.
    func deliveryLatency() -> DeliveryLatencyHistogram {
        shards.reduce(into: DeliveryLatencyHistogram()) { total, shard in
            if let h = shard.engine?.histogram { total.add(h) }
        }
    }
}

/// One part of the farm: the devices whose ids fall in it (with their apps' tokens), its lock, and the engine
/// that hands it pushes. Shards share nothing a push touches, so deliveries to different shards run in parallel.
final class DeviceShard: Sendable {
    let index: Int
    let state: Mutex<DeviceStore>
    /// Carries pushes to this shard's devices off the request path (none on a manual clock: delivery is then
    /// synchronous).
    let engine: DeliveryEngine?

    init(index: Int, store: consuming DeviceStore, engine: DeliveryEngine?) {
        self.index = index
        self.state = Mutex(store)
        self.engine = engine
    }
}
