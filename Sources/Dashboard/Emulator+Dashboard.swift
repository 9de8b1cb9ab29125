import APNsEmulator
import EmulatorControl
import FrontDoors
import VirtualDevices

extension Emulator {
    /// The whole emulator `serve` runs: virtual devices, the front doors, and the dashboard at the control port's `/`.
    public static func withDashboard(configuration: EmulatorConfiguration, clock: (any EmulatorClock)? = nil) throws
        -> (emulator: Emulator, devices: DeviceFarm)
    {
        try withFrontDoors(configuration: configuration, clock: clock) { services, devices in
            configuration.transportOnly ? []
                : [DashboardControlAPI(farm: devices, services: services, certificatesDirectory: configuration.certificatesDirectory)]
        }
    }
}
