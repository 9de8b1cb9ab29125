import APNsEmulator

/// The devices of one shard, their installs and which install owns which token: the shard's state, guarded by
/// its lock.
struct DeviceStore: ~Copyable, Sendable {
    /// Devices by id. Devices and apps are added and removed only through `add` and `remove…` below, which
    /// count the change in `layout`: owners keep the dictionaries' indices of their install (`TokenOwner.route`).
    var devices: [String: VirtualDevice] = [:]
    /// Device ids in creation order.
    private(set) var order: [String] = []
    /// token → (device, bundle id, network flag) of the install that owns it. Keys are added and removed
    /// only through `setOwner` and `removeOwner`.
    private(set) var owners: [TokenKey: TokenOwner] = [:]

    /// The position in `owners` of `token`'s owner, if an install owns it.
    func ownerIndex(of token: String) -> Dictionary<TokenKey, TokenOwner>.Index? {
        owners.index(forKey: TokenKey(token))
    }

    /// Makes `owner` the owner of `token`; true when the token had none.
    mutating func setOwner(_ owner: TokenOwner, for token: TokenKey) -> Bool {
        owners.updateValue(owner, forKey: token) == nil
    }

    mutating func removeOwner(of token: TokenKey) -> TokenOwner? {
        owners.removeValue(forKey: token)
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
    mutating func route(at o: Dictionary<TokenKey, TokenOwner>.Index) -> InstallRoute? {
        // Read through the value's position: the dictionary's getter copies the whole owner (a retain and
        // release of each of its strings) to read one field. (Only this first line runs on every push.)
        if let r = DeviceFarm.update(&owners.values[o], { $0.route }), r.layout == layout { return r }
        guard let d = devices.index(forKey: owners.values[o].deviceId) else { return nil }
        let bundleId = owners.values[o].bundleId
        guard let a = DeviceFarm.update(&devices.values[d], { $0.apps.index(forKey: bundleId) }) else { return nil }
        let r = InstallRoute(layout: layout, device: d, app: a)
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
    /// Installs with something for the tick to move on (a background push held by the budget, a service
    /// extension still running), kept by `DeviceFarm.withApp`: the tick visits these, not every device.
    var ticking: Set<InstallKey> = []
    /// Fates, and their counts for `/metrics`; the OS model records into it through its `OSContext`.
    let fates: FateRecorder
    /// Issues this shard's tokens.
    let registrar: any TokenRegistrar
    /// Parsed payloads (this shard's) and the uploaded files (every shard's), for every `OSContext`.
    let caches: FarmCaches
    /// A buffer reused by every queued delivery (emptied after use, capacity kept), swapped out of the state
    /// while in use so it stays uniquely referenced.
    var spareActions: [DeliveryQueue.Action] = []

    init(queue: DeliveryQueue, registrar: any TokenRegistrar, caches: FarmCaches, fates: FateRecorder) {
        self.queue = queue
        self.registrar = registrar
        self.caches = caches
        self.fates = fates
    }
}

/// The install that owns a token.
struct TokenOwner: Sendable, Equatable {
    var deviceId: String
    var bundleId: String
    /// The device's network flag, mirrored from its configuration (`DeviceStore.setOnline` keeps them in step):
    /// every push reads it, and reading `devices[id]?.configuration.online` copies a whole device (its apps,
    /// strings, arrays) out of the dictionary to read one Bool.
    var online: Bool
    /// Where the install sits, as of `DeviceStore.layout` then (`DeviceStore.route(at:)`).
    var route: InstallRoute? = nil
}

/// An install's position in the store's dictionaries, valid while `DeviceStore.layout` equals `layout`.
struct InstallRoute: Sendable, Equatable {
    var layout: UInt64
    var device: Dictionary<String, VirtualDevice>.Index
    var app: Dictionary<String, VirtualApp>.Index
}

/// A device's install of one app.
struct InstallKey: Hashable, Sendable {
    var deviceId: String
    var bundleId: String
}
