import APNsEmulator
import APNsProtocol
import EmulatorControl

extension Emulator {
    /// The emulator with virtual devices attached: accepted pushes reach devices, the control API gains
    /// `/_emulator/devices` and `/_emulator/deliveries`. With `configuration.manualClock` (or a
    /// `ManualClock` given), time moves only when told to.
    ///
    /// - Parameters:
    ///   - clock: Overrides the clock the configuration implies.
    ///   - more: Layers above the devices (the front doors) to plug in beside them.
    package static func withDevices(
        configuration: EmulatorConfiguration, clock: (any EmulatorClock)? = nil,
        more: (EmulatorServices, DeviceFarm) throws -> [any EmulatorExtension]
    ) throws -> (emulator: Emulator, devices: DeviceFarm) {
        let clock = clock ?? (configuration.manualClock ? ManualClock() : SystemClock())
        var farm: DeviceFarm?
        let emulator = try Emulator(configuration: configuration, clock: clock) { services in
            let devices = DeviceFarm(
                services: services,
                lowPriorityDelayMillis: Millis((configuration.lowPriorityDelaySeconds * 1000).rounded()),
                deliveryLatency: configuration.deliveryLatency)
            farm = devices
            services.reportDevices { [weak devices] in
                (devices?.deviceCount ?? 0, devices?.deviceIds(limit: ReplicaReport.maxDeviceIds) ?? [])
            }
            return [DevicesControlAPI(farm: devices)] + (try more(services, devices))
        }
        // Started once the emulator exists, so a failed start leaves no timer behind.
        farm!.startTimer()
        return (emulator, farm!)
    }

    /// The same, devices only.
    public static func withDevices(configuration: EmulatorConfiguration, clock: (any EmulatorClock)? = nil) throws
        -> (emulator: Emulator, devices: DeviceFarm)
    {
        try withDevices(configuration: configuration, clock: clock, more: { _, _ in [] })
    }
}
