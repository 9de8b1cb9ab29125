import APNsEmulator
import APNsProtocol

/// Devices and apps: create, install, connect, restore, remove.
extension DeviceFarm {
    /// Adds a device with `apps` installed, all under one lock: nobody sees it half-built, and nothing is
    /// created when an app is refused. An empty id gets the next `device-N`.
    public func createDevice(_ configuration: DeviceConfiguration, apps: [AppConfiguration] = []) throws(DeviceError)
        -> VirtualDevice
    {
        var c = configuration
        var automaticId = c.id.isEmpty
        while true {
            if automaticId {
                c.id = "device-\(deviceNumbers.wrappingAdd(1, ordering: .relaxed).oldValue)"
                if configuration.name.isEmpty { c.name = c.id }
            }
            let number = creationNumbers.wrappingAdd(1, ordering: .relaxed).oldValue
            let made = try shard(ofDevice: c.id).state.withLock { s throws(DeviceError) -> VirtualDevice? in
                if s.devices[c.id] != nil {
                    if automaticId { return nil }
                    throw .deviceExists(c.id)
                }
                var device = VirtualDevice(configuration: c)
                device.creationNumber = number
                for app in apps {
                    guard device.apps[app.bundleId] == nil else {
                        throw .appAlreadyInstalled(device: c.id, bundleId: app.bundleId)
                    }
                    device.apps[app.bundleId] = VirtualApp(configuration: app, platform: c.platform)
                    device.installOrder.append(app.bundleId)
                }
                s.add(device)
                return device
            }
            if let made { return made }
            automaticId = true
        }
    }

    /// Removes a device; its apps' tokens become Unregistered (as a wiped or lost phone's do).
    public func removeDevice(_ id: String) throws(DeviceError) {
        let now = services.clock.now()
        try shard(ofDevice: id).state.withLock { s throws(DeviceError) in
            guard let device = s.devices[id] else { throw .deviceNotFound(id) }
            for bundle in device.installOrder { try removeApp(&s, id, bundle, now: now) }
            s.removeDevice(id)
        }
    }

    /// Every device, in creation order.
    public func devices() -> [VirtualDevice] {
        firstDevices(.max).devices
    }

    /// The first `limit` devices in creation order, and how many the farm has. Each shard keeps its devices in
    /// creation order, so only the first `limit` of each are copied out (the device wall shows 50 of maybe 100,000).
    public func firstDevices(_ limit: Int) -> (total: Int, devices: [VirtualDevice]) {
        var total = 0
        var candidates: [VirtualDevice] = []
        for shard in shards {
            shard.state.withLock { s in
                total += s.order.count
                candidates += s.order.prefix(max(0, limit)).compactMap { s.devices[$0.id] }
            }
        }
        candidates.sort { $0.creationNumber < $1.creationNumber }
        return (total, Array(candidates.prefix(max(0, limit))))
    }

    /// The newest `recent` fates of each install, oldest first: one walk of each shard's log for all of them.
    func newestFates(of installs: [InstallKey], recent: Int) -> [InstallKey: [PushFate]] {
        var byShard: [Int: [InstallKey]] = [:]
        for key in installs { byShard[spread.shard(ofDevice: key.deviceId), default: []].append(key) }
        var out: [InstallKey: [PushFate]] = [:]
        for (index, keys) in byShard {
            let found = shards[index].state.withLock { s in s.fates.log.newest(recent, of: keys) }
            for (key, fates) in found { out[key] = fates.map(\.fate) }
        }
        return out
    }

    /// Whether a device with this id exists.
    public func deviceExists(_ id: String) -> Bool {
        shard(ofDevice: id).state.withLock { $0.devices[id] != nil }
    }

    /// One device, or `deviceNotFound`.
    public func device(_ id: String) throws(DeviceError) -> VirtualDevice {
        try shard(ofDevice: id).state.withLock { s throws(DeviceError) in
            guard let d = s.devices[id] else { throw .deviceNotFound(id) }
            return d
        }
    }

    /// Network on or off. Coming online delivers what APNs held and completes waiting registrations.
    public func setOnline(_ id: String, _ online: Bool) throws(DeviceError) {
        let now = services.clock.now()
        try shard(ofDevice: id).state.withLock { s throws(DeviceError) in
            guard let device = s.devices[id] else { throw .deviceNotFound(id) }
            s.setOnline(id, online)
            guard online, !device.configuration.online else { return }
            let tokens = device.installOrder.compactMap { device.apps[$0]?.token }
            apply(s.queue.deviceOnline(tokens: tokens, now: now), to: &s, now: now)
            for bundle in device.installOrder {
                try withApp(&s, id, bundle, now: now) { app, ctx in app.deviceOnline(ctx) }
            }
        }
    }

    /// A Focus on or off: what later notifications may show (those already shown stay).
    public func setFocus(_ id: String, _ on: Bool) throws(DeviceError) {
        try shard(ofDevice: id).state.withLock { s throws(DeviceError) in
            guard s.devices[id] != nil else { throw .deviceNotFound(id) }
            s.devices[id]?.configuration.focus = on
        }
    }

    /// The ring/silent switch.
    public func setMuted(_ id: String, _ muted: Bool) throws(DeviceError) {
        try shard(ofDevice: id).state.withLock { s throws(DeviceError) in
            guard s.devices[id] != nil else { throw .deviceNotFound(id) }
            s.devices[id]?.configuration.muted = muted
        }
    }

    /// Restore from a backup: every app keeps its settings but loses its token (the old ones become
    /// Unregistered), its notifications and its running process.
    public func restore(_ id: String) throws(DeviceError) {
        let now = services.clock.now()
        try shard(ofDevice: id).state.withLock { s throws(DeviceError) in
            guard let device = s.devices[id] else { throw .deviceNotFound(id) }
            for bundle in device.installOrder {
                try withApp(&s, id, bundle, now: now) { app, ctx throws(DeviceError) in
                    try app.invalidateToken(ctx)
                    app.centre.removeAll()
                    app.terminate(ctx)
                }
            }
        }
    }

    /// Installs an app (a reinstall after `uninstall` is a new install: it will get a new token).
    public func install(_ configuration: AppConfiguration, on deviceId: String) throws(DeviceError) -> VirtualApp {
        try shard(ofDevice: deviceId).state.withLock { s throws(DeviceError) in
            guard let device = s.devices[deviceId] else { throw .deviceNotFound(deviceId) }
            guard device.apps[configuration.bundleId] == nil else {
                throw .appAlreadyInstalled(device: deviceId, bundleId: configuration.bundleId)
            }
            let app = VirtualApp(configuration: configuration, platform: device.configuration.platform)
            s.add(app, on: deviceId)
            return app
        }
    }

    /// Uninstalls: the token becomes Unregistered now (pushes get 410 with this time).
    public func uninstall(_ bundleId: String, from deviceId: String) throws(DeviceError) {
        let now = services.clock.now()
        try shard(ofDevice: deviceId).state.withLock { s throws(DeviceError) in try removeApp(&s, deviceId, bundleId, now: now) }
    }

    private func removeApp(_ s: inout DeviceStore, _ deviceId: String, _ bundleId: String, now: Millis)
        throws(DeviceError)
    {
        try withApp(&s, deviceId, bundleId, now: now) { app, ctx throws(DeviceError) in
            try app.invalidateToken(ctx)
        }
        s.removeApp(bundleId, from: deviceId)
    }

    /// One installed app, or `deviceNotFound` / `appNotInstalled`.
    public func app(_ bundleId: String, on deviceId: String) throws(DeviceError) -> VirtualApp {
        try shard(ofDevice: deviceId).state.withLock { s throws(DeviceError) in
            guard let device = s.devices[deviceId] else { throw .deviceNotFound(deviceId) }
            guard let app = device.apps[bundleId] else { throw .appNotInstalled(device: deviceId, bundleId: bundleId) }
            return app
        }
    }

    /// Fates recorded for pushes, oldest first, filtered (`apnsId` in either case).
    public func fates(apnsId: String? = nil, deviceId: String? = nil, bundleId: String? = nil) -> [PushFate] {
        // A device's fates are in its shard; those of a push no device owned (no device id) may be in any.
        let searched = deviceId.flatMap { $0.isEmpty ? nil : [shard(ofDevice: $0)] } ?? shards
        return searched.flatMap { shard in
            shard.state.withLock { s in s.fates.log.numberedMatching(apnsId: apnsId, deviceId: deviceId, bundleId: bundleId) }
        }.sorted { $0.seq < $1.seq }.map(\.fate)
    }
}
