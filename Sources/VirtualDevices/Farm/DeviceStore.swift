import APNsEmulator

/// The devices of one shard, their installs and which install owns which token: the shard's state, guarded by
/// its lock.
struct DeviceStore: ~Copyable, Sendable {
    /// Devices by id. Devices and apps are added and removed only through `add` and `remove…` below, which keep
    /// the creation and install orders in step.
    var devices: [String: VirtualDevice] = [:]
    /// Device ids in creation order (by `creationNumber`: two creations racing to one shard may arrive out of it).
    private(set) var order: [(number: Int, id: String)] = []
    /// token → (device, bundle id, network flag) of the install that owns it. Keys are added and removed
    /// only through `setOwner` and `removeOwner`.
    private(set) var owners: [TokenKey: TokenOwner] = [:]

    /// Makes `owner` the owner of `token`; true when the token had none.
    mutating func setOwner(_ owner: TokenOwner, for token: TokenKey) -> Bool {
        owners.updateValue(owner, forKey: token) == nil
    }

    mutating func removeOwner(of token: TokenKey) -> TokenOwner? {
        owners.removeValue(forKey: token)
    }

    mutating func add(_ device: VirtualDevice) {
        devices[device.id] = device
        // Searched from the end: a device is almost always the newest.
        let at = order.lastIndex { $0.number < device.creationNumber }.map { $0 + 1 } ?? 0
        order.insert((device.creationNumber, device.id), at: at)
    }

    mutating func removeDevice(_ id: String) {
        devices[id] = nil
        order.removeAll { $0.id == id }
    }

    mutating func add(_ app: VirtualApp, on deviceId: String) {
        devices[deviceId]?.apps[app.bundleId] = app
        devices[deviceId]?.installOrder.append(app.bundleId)
    }

    mutating func removeApp(_ bundleId: String, from deviceId: String) {
        devices[deviceId]?.apps[bundleId] = nil
        devices[deviceId]?.installOrder.removeAll { $0 == bundleId }
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
    /// The payloads this shard parsed last.
    var payloads = PayloadCache()
    /// The files served at `/_emulator/files/{name}` (every shard's), for service extensions to download.
    let files: SharedFiles

    init(queue: DeliveryQueue, registrar: any TokenRegistrar, files: SharedFiles, fates: FateRecorder) {
        self.queue = queue
        self.registrar = registrar
        self.files = files
        self.fates = fates
    }
}

/// The install that owns a token.
struct TokenOwner: Sendable, Equatable {
    var deviceId: String
    var bundleId: String
    /// Whether the device holds its connection to APNs: what APNs itself knows of a device when it decides to
    /// deliver or store (`DeviceStore.setOnline` keeps it in step with the device's configuration).
    var online: Bool
}

/// A device's install of one app.
struct InstallKey: Hashable, Sendable {
    var deviceId: String
    var bundleId: String
}
