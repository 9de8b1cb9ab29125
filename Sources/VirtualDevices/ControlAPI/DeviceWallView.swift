import APNsEmulator

/// `GET /_emulator/device-wall`: the first devices, and for each of their apps the notification centre and the
/// newest plugin events, plugin calls and push fates, in one answer (the dashboard's device wall: one call a
/// refresh however many apps, instead of four per app).
struct DeviceWallView: Encodable {
    /// Devices in the farm; `devices` holds the first `limit` of them in creation order.
    var totalDevices: Int
    var devices: [DeviceView]
    var apps: [WallApp]

    struct WallApp: Encodable {
        var deviceId: String
        var bundleId: String
        var centre: CentreView
        var events: [EventView]
        var calls: [CallView]
        var deliveries: [PushFate]
    }

    init(farm: DeviceFarm, limit: Int, recent: Int) {
        let (total, shown) = farm.firstDevices(limit)
        totalDevices = total
        devices = shown.map(DeviceView.init)
        let installs = shown.flatMap { device in device.installedApps.map { InstallKey(deviceId: device.id, bundleId: $0.bundleId) } }
        let fates = farm.newestFates(of: installs, recent: recent)
        apps = shown.flatMap { device in
            device.installedApps.map { app in
                WallApp(deviceId: device.id, bundleId: app.bundleId,
                        centre: CentreView(app),
                        events: app.events.suffix(recent).map(EventView.init),
                        calls: app.calls.suffix(recent).map(CallView.init),
                        deliveries: fates[InstallKey(deviceId: device.id, bundleId: app.bundleId)] ?? [])
            }
        }
    }
}
