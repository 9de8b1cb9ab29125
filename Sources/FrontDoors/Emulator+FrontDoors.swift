import APNsEmulator
import EmulatorControl
import Foundation
import H2Transport
import VirtualDevices

extension Emulator {
    /// The emulator with virtual devices and, when `configuration.frontDoorPort` is set, the providers' front doors
    /// (started with the other listeners, in the ready file as `frontDoors`).
    public static func withFrontDoors(configuration: EmulatorConfiguration, clock: (any EmulatorClock)? = nil) throws
        -> (emulator: Emulator, devices: DeviceFarm)
    {
        try withFrontDoors(configuration: configuration, clock: clock, more: { _, _ in [] })
    }

    /// The same, with layers above the front doors (the dashboard) plugged in beside them.
    package static func withFrontDoors(
        configuration: EmulatorConfiguration, clock: (any EmulatorClock)? = nil,
        more: @escaping (EmulatorServices, DeviceFarm) throws -> [any EmulatorExtension]
    ) throws -> (emulator: Emulator, devices: DeviceFarm) {
        try withDevices(configuration: configuration, clock: clock) { services, devices in
            let extra = try more(services, devices)
            guard let port = configuration.frontDoorPort, !configuration.transportOnly else { return extra }
            let doors = try FrontDoors(certificatesDirectory: configuration.certificatesDirectory, clock: services.clock,
                                       legacyShutDown: configuration.fcmLegacyShutDown, devices: devices)
            return [FrontDoorsControlAPI(frontDoors: doors, host: configuration.host, port: port)] + extra
        }
    }
}
