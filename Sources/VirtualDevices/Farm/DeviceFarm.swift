import APNsEmulator
import APNsProtocol
import Dispatch
import H2Transport
import Synchronization
import WireBytes

/// Every virtual device of a running emulator, the delivery queue between APNs and them, and the record
/// of each push's fate.
///
/// ### Overview
/// Accepted pushes arrive from the APNs handler (`pushAccepted`, on an event loop); if the token
/// belongs to a device's app they reach the app's OS model, at once when the `DeliveryQueue` would hand them
/// straight over (online device, no deferral) and through it otherwise (offline storage, deferral, expiry).
/// What happens to each push is recorded as it happens in the fate log (`FateRecorder`). The control API (`+ControlAPI`) drives devices, apps, plugin calls and user
/// actions. Time is the emulator's clock: a manual clock's advances arrive through `clockAdvanced`, and a
/// timer ticks every 250 ms for real time.
///
/// ### Threading
/// One `Mutex` guards all device state, the queue and the fates. Operations are short; the one kind of
/// I/O under it is the token registry's store write when a device registers or an app is uninstalled
/// (SQLite with `--state-dir`, nothing with `--ephemeral`): control-driven and rare, and pushes arriving
/// meanwhile wait that long. The registry's own lock is always taken inside this one, never around it.
/// While no device owns any token, a push costs one atomic load (`ownedTokenCount`); once one does,
/// every accepted push takes this lock for a dictionary lookup.
public final class DeviceFarm: Sendable {
    let services: EmulatorServices
    let registrar: any TokenRegistrar
    let state: Mutex<FarmState>
    /// How many tokens map to an installed app (the hot path's "any device at all?" check).
    private let ownedTokenCount = Atomic<Int>(0)
    private let timer: Mutex<DispatchSourceTimer?> = Mutex(nil)
    /// Fates kept (oldest dropped first).
    static let fateCapacity = 100_000

    struct FarmState: ~Copyable, Sendable {
        /// Devices by id. Devices and apps are added and removed only through `add` and `remove…` below, which
        /// count the change in `layout`: owners keep the dictionaries' indices of their install (`Owner.route`).
        var devices: [String: VirtualDevice] = [:]
        /// Device ids in creation order.
        private(set) var order: [String] = []
        /// token → (device, bundle id, network flag) of the install that owns it. Keys are added and removed
        /// only through `setOwner` and `removeOwner`, which forget the last owner's position.
        private(set) var owners: [TokenKey: Owner] = [:]
        /// Where the last push's owner sits in `owners`, the first eight bytes of its token, and (from the second
        /// push to it on) its key: a sender's burst to one device (and a load test's) finds its owner with one
        /// comparison of the key instead of a fingerprint, a hash and a probe. Pushes to other tokens in turn (a
        /// fan-out) differ in those first bytes, so each miss costs a word comparison and keeps no string (a kept
        /// one would be retained and released every push). Positions stay valid until a key is added or removed,
        /// and both forget them.
        private var lastPrefix: UInt64 = 0
        private var lastIndex: Dictionary<TokenKey, Owner>.Index? = nil
        private var lastKey: TokenKey? = nil

        /// The position in `owners` of `token`'s owner, if an install owns it.
        mutating func ownerIndex(of token: String) -> Dictionary<TokenKey, Owner>.Index? {
            let prefix = Self.prefix(of: token)
            if let i = lastIndex, lastPrefix == prefix {
                // Compared with the borrowed token: a `TokenKey` built first retained and released it per push.
                if lastKey != nil {
                    if lastKey!.matches(token) { return i }
                } else if owners.keys[i].matches(token) {
                    lastKey = TokenKey(token)
                    return i
                }
            }
            let key = TokenKey(token)
            guard let o = owners.index(forKey: key) else { return nil }
            lastPrefix = prefix
            lastIndex = o
            lastKey = nil
            return o
        }

        /// The first eight bytes of `token` as a word (fewer, zero-filled, for a shorter one).
        private static func prefix(of token: String) -> UInt64 {
            withUTF8Bytes(token) { bytes -> UInt64 in
                if bytes.count >= 8 { return bytes.loadUnaligned(as: UInt64.self) }
                var word: UInt64 = 0
                for (i, b) in bytes.enumerated() { word |= UInt64(b) << (8 * UInt64(i)) }
                return word
            }
        }

        /// Makes `owner` the owner of `token`; true when the token had none.
        mutating func setOwner(_ owner: Owner, for token: TokenKey) -> Bool {
            forgetLastOwner()
            return owners.updateValue(owner, forKey: token) == nil
        }

        private mutating func forgetLastOwner() {
            lastIndex = nil
            lastKey = nil
        }

        mutating func removeOwner(of token: TokenKey) -> Owner? {
            forgetLastOwner()
            return owners.removeValue(forKey: token)
        }
        /// Counts structural changes of `devices` and their apps: a route cached under another count is stale.
        private(set) var layout: UInt64 = 0

        mutating func add(_ device: VirtualDevice) {
            devices[device.id] = device
            order.append(device.id)
            layout &+= 1
        }

        mutating func removeDevice(_ id: String) {
            devices[id] = nil
            order.removeAll { $0 == id }
            layout &+= 1
        }

        mutating func add(_ app: VirtualApp, on deviceId: String) {
            devices[deviceId]?.apps[app.bundleId] = app
            devices[deviceId]?.installOrder.append(app.bundleId)
            layout &+= 1
        }

        mutating func removeApp(_ bundleId: String, from deviceId: String) {
            devices[deviceId]?.apps[bundleId] = nil
            devices[deviceId]?.installOrder.removeAll { $0 == bundleId }
            layout &+= 1
        }

        /// Where the install owning token `o` sits in `devices` (nil: it is gone), cached in the owner until the
        /// layout changes. A push then finds its app with one hash (its token's) instead of three (token, device
        /// id, bundle id). Dictionary indices stay valid until an insertion or removal, and every one of those
        /// changes `layout`.
        mutating func route(at o: Dictionary<TokenKey, Owner>.Index) -> Route? {
            // Read through the value's position: the dictionary's getter copies the whole owner (a retain and
            // release of each of its strings) to read one field. (Only this first line runs on every push.)
            if let r = DeviceFarm.update(&owners.values[o], { $0.route }), r.layout == layout { return r }
            guard let d = devices.index(forKey: owners.values[o].deviceId) else { return nil }
            let bundleId = owners.values[o].bundleId
            guard let a = DeviceFarm.update(&devices.values[d], { $0.apps.index(forKey: bundleId) }) else { return nil }
            let r = Route(layout: layout, device: d, app: a)
            owners.values[o].route = r
            return r
        }

        /// Sets a device's network flag in its configuration and in the owners of its tokens together.
        mutating func setOnline(_ id: String, _ value: Bool) {
            devices[id]?.configuration.online = value
            // Walked by index: `for i in owners.indices` holds a copy of the dictionary, so the first write would
            // copy all of it.
            var i = owners.startIndex
            while i != owners.endIndex {
                if owners.values[i].deviceId == id { owners.values[i].online = value }
                owners.formIndex(after: &i)
            }
        }
        var queue: DeliveryQueue
        /// Fates, and their counts for `/metrics`; the OS model records into it through its `OSContext`.
        let fates = FateRecorder(capacity: DeviceFarm.fateCapacity)
        var nextDeviceNumber = 1
        /// Files served at `/_emulator/files/{name}` for service extensions to download.
        var files: [String: [UInt8]] {
            get { caches.files }
            nonmutating set { caches.files = newValue }
        }
        /// Uploaded files and parsed payloads, shared with every `OSContext` (guarded by the same lock).
        let caches = FarmCaches()
        /// A buffer reused by every queued delivery (emptied after use, capacity kept), swapped out of the state
        /// while in use so it stays uniquely referenced.
        var spareActions: [DeliveryQueue.Action] = []

        init(queue: DeliveryQueue) { self.queue = queue }
    }

    struct Owner: Sendable, Equatable {
        var deviceId: String
        var bundleId: String
        /// The device's network flag, mirrored from its configuration (`FarmState.setOnline` keeps them in step):
        /// every push reads it, and reading `devices[id]?.configuration.online` copies a whole device (its apps,
        /// strings, arrays) out of the dictionary to read one Bool.
        var online: Bool
        /// Where the install sits, as of `FarmState.layout` then (`FarmState.route(at:)`).
        var route: Route? = nil
    }

    /// An install's position in the farm's dictionaries, valid while `FarmState.layout` equals `layout`.
    struct Route: Sendable, Equatable {
        var layout: UInt64
        var device: Dictionary<String, VirtualDevice>.Index
        var app: Dictionary<String, VirtualApp>.Index
    }

    /// - Parameter lowPriorityDelayMillis: how long APNs holds priority 5 and 1 pushes to online devices.
    public init(services: EmulatorServices, lowPriorityDelayMillis: Millis = 0) {
        self.services = services
        self.registrar = RegistryTokenRegistrar(tokens: services.tokens)
        self.state = Mutex(FarmState(queue: DeliveryQueue(lowPriorityDelayMillis: lowPriorityDelayMillis)))
    }

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

    /// An accepted push: delivered, held or dropped per APNs semantics if a device owns its token.
    public func deliver(_ push: AcceptedPush, now: Millis) {
        guard ownedTokenCount.load(ordering: .relaxed) > 0 else { return }
        state.withLock { s in
            guard let o = s.ownerIndex(of: push.token) else { return }
            let owner = s.owners.values[o]
            // Every push of a load test goes to its device at once, read where the validator left it; only a
            // push APNs holds (offline device, deferred priority) becomes a `QueuedPush`.
            if s.queue.deliversAtOnce(priority: push.priority, online: owner.online) {
                hand(push, owner: owner, route: s.route(at: o), to: &s, now: now)
                return
            }
            var actions = s.spareActions
            s.spareActions = []
            if let due = s.queue.acceptForDelivery(QueuedPush(push, acceptedAt: now), online: owner.online, now: now,
                                                   into: &actions) {
                hand(due, owner: owner, to: &s, now: now)
            }
            apply(actions, to: &s, now: now)
            actions.removeAll(keepingCapacity: true)
            s.spareActions = actions
        }
    }

    /// Runs due timers: deferred pushes, stored pushes expiring, background pushes held by the budget.
    public func tick() {
        let now = services.clock.now()
        state.withLock { s in
            let actions: [DeliveryQueue.Action]
            do {
                // The owners map, not `s`, is captured: the queue is mutated while the closure runs. Scoped so the
                // copy is gone before `apply` changes the map (no copy-on-write of the whole dictionary).
                let owners = s.owners
                let online = { (token: String) -> Bool in owners[TokenKey(token)]?.online ?? false }
                actions = s.queue.tick(now: now, isOnline: online)
            }
            apply(actions, to: &s, now: now)
            for id in s.order {
                for bundle in s.devices[id]?.installOrder ?? [] {
                    guard let app = s.devices[id]?.apps[bundle],
                          app.heldBackgroundPush != nil || !app.extensionRuns.isEmpty else { continue }
                    // The app exists (just checked under the same lock).
                    try? withApp(&s, id, bundle, now: now) { app, ctx in
                        app.releaseHeldBackgroundPush(ctx)
                        app.advanceExtensions(ctx)
                    }
                }
            }
        }
    }

    /// Carries out the queue's decisions, recording each as a fate.
    func apply(_ actions: [DeliveryQueue.Action], to s: inout FarmState, now: Millis) {
        for action in actions {
            switch action {
            case .deliver(let push):
                hand(push, owner: s.owners[TokenKey(push.token)], to: &s, now: now)
            case .store(let push):
                record(push, .stored, "the device is offline: APNs holds the newest push per app", s, now)
            case .defer(let push, let until):
                record(push, .deferred, "priority \(push.priority): APNs delays delivery until \(until)", s, now)
            case .coalesce(let push, let newer):
                record(push, .coalesced, "replaced by the newer push \(newer) while the device was offline", s, now)
            case .expire(let push, let reason):
                record(push, .expired, reason, s, now)
            }
        }
    }

    /// Hands a push to the app that owns its token (`owner`, as the caller looked it up); the app records its
    /// fates.
    private func hand(_ push: some DeliverablePush, owner: Owner?, route: Route? = nil, to s: inout FarmState,
                      now: Millis) {
        var reached = false
        if let owner {
            reached = (try? withApp(&s, owner.deviceId, owner.bundleId, route: route, now: now) { app, ctx in
                app.receive(push, ctx)
            }) != nil
        }
        if !reached { record(push, .dropped, "the app is no longer installed", s, now) }
    }

    /// Records a fate the farm decided (the queue's, or a push no app could take).
    private func record(_ push: some DeliverablePush, _ kind: PushFate.Kind, _ reason: String, _ s: borrowing FarmState,
                        _ now: Millis) {
        s.fates.record(apnsId: push.apnsId, deviceId: s.owners[TokenKey(push.token)]?.deviceId ?? "", bundleId: push.bundleId,
                       token: push.token, kind, reason, at: now)
    }

    // MARK: Running app operations

    /// Runs `body` on an installed app with its OS context, then keeps the token→owner map in step with
    /// the app's token (registration may have issued one, uninstall or restore may have ended one).
    ///
    /// The app is mutated in place through the dictionaries' value positions: one hash lookup per
    /// dictionary, no copy, and its arrays stay uniquely referenced so appends do not copy them. (Removing
    /// device and app and inserting them back cost four lookups and two whole-value moves a push; nested
    /// optional subscripts, `s.devices[id]?.apps[b]`, run modify coroutines that allocate their frames.)
    ///
    /// - Parameter route: Where the install sits, if the caller has it current (`FarmState.route(at:)`): no lookup.
    @discardableResult
    func withApp<T>(_ s: inout FarmState, _ deviceId: String, _ bundleId: String, route: Route? = nil, now: Millis,
                    _ body: (inout VirtualApp, OSContext) throws(DeviceError) -> T) throws(DeviceError) -> T {
        assert(route == nil || route!.layout == s.layout, "a stale route")
        guard let d = route?.device ?? s.devices.index(forKey: deviceId) else { throw .deviceNotFound(deviceId) }
        let caches = s.caches
        let fates = s.fates
        // Results land in locals rather than a returned tuple: a generic tuple of `Result` and two tokens was
        // copied through value witnesses on every push.
        var value: T?
        var failure: DeviceError?
        var tokenBefore: String??
        var tokenAfter: String?
        var deviceOnline = false
        // Everything is read through the `inout` of each value position: a read through the dictionaries'
        // getters (`s.devices.values[d].configuration`) copies the whole device out first.
        Self.update(&s.devices.values[d]) { device in
            guard let a = route?.app ?? device.apps.index(forKey: bundleId) else {
                failure = .appNotInstalled(device: deviceId, bundleId: bundleId)
                return
            }
            let ctx = OSContext(deviceId: deviceId, platform: device.configuration.platform,
                                online: device.configuration.online, now: now,
                                backgroundBudgetPerHour: device.configuration.backgroundBudgetPerHour,
                                registrar: registrar, caches: caches, fates: fates)
            deviceOnline = device.configuration.online
            Self.update(&device.apps.values[a]) { app in
                do throws(DeviceError) { value = try body(&app, ctx) } catch { failure = error }
                if let before = app.tokenBefore {
                    app.tokenBefore = nil
                    tokenBefore = before
                    tokenAfter = app.token
                }
            }
        }
        if let before = tokenBefore, before != tokenAfter {
            if let before { unown(before, in: &s, now: now) }
            if let tokenAfter {
                own(tokenAfter, Owner(deviceId: deviceId, bundleId: bundleId, online: deviceOnline), in: &s)
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

    func own(_ token: String, _ owner: Owner, in s: inout FarmState) {
        if s.setOwner(owner, for: TokenKey(token)) { ownedTokenCount.add(1, ordering: .relaxed) }
    }

    /// The token left its install: what APNs held for it is dropped (and recorded so). Called by `withApp`
    /// after the app's operation, so these drops follow whatever the app itself recorded (an uninstall records
    /// the push the device held for it first, then those APNs held).
    func unown(_ token: String, in s: inout FarmState, now: Millis) {
        let owner = s.removeOwner(of: TokenKey(token))
        if owner != nil { ownedTokenCount.subtract(1, ordering: .relaxed) }
        for push in s.queue.forget(token: token) {
            s.fates.record(apnsId: push.apnsId, deviceId: owner?.deviceId ?? "", bundleId: push.bundleId, token: token,
                           .dropped, "the token's install ended (uninstall, restore or device removed) while APNs held"
                               + " the push", at: now)
        }
    }

    /// Stops the timer.
    public func stop() {
        timer.withLock { t in
            t?.cancel()
            t = nil
        }
    }

    /// Forgets every device, held push and fate.
    public func removeAll() {
        state.withLock { s in
            ownedTokenCount.subtract(s.owners.count, ordering: .relaxed)
            s = FarmState(queue: DeliveryQueue(lowPriorityDelayMillis: s.queue.lowPriorityDelayMillis))
        }
    }
}
