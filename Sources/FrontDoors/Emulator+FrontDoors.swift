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
        try withDevices(configuration: configuration, clock: clock) { services, devices in
            guard let port = configuration.frontDoorPort, !configuration.transportOnly else { return [] }
            let doors = try FrontDoors(certificatesDirectory: configuration.certificatesDirectory, clock: services.clock,
                                       legacyShutDown: configuration.fcmLegacyShutDown, devices: devices)
            return [FrontDoorsControlAPI(frontDoors: doors, host: configuration.host, port: port)]
        }
    }
}
