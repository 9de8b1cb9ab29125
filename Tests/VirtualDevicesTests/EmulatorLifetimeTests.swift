import APNsEmulator
import EmulatorControl
import Foundation
import Testing

@testable import VirtualDevices

/// What an emulator leaves behind once it is shut down: nothing, so a test suite can start hundreds in one process.
@Suite("Emulator lifetime")
struct EmulatorLifetimeTests {
    @Test func anEmulatorWithDevicesIsFreedOnceShutDownAndDropped() async throws {
        // On a thread of its own: shutdown joins the event loops.
        let freed = await withCheckedContinuation { (cont: CheckedContinuation<Result<[String], any Error>, Never>) in
            Thread.detachNewThread {
                weak var emulator: Emulator?
                weak var services: EmulatorServices?
                weak var farm: DeviceFarm?
                func run() throws {
                    let c = EmulatorConfiguration.inProcess(certificatesDirectory: bundledCertificates, eventLoops: 1,
                                                            shutdownGraceSeconds: 1)
                    let (started, devices) = try Emulator.withDevices(configuration: c, clock: SystemClock())
                    emulator = started
                    services = started.services
                    farm = devices
                    _ = try started.start()
                    _ = try devices.createDevice(DeviceConfiguration(id: "phone"), apps: [AppConfiguration(bundleId: "com.example.app")])
                    started.shutdown()
                }
                do {
                    try run()
                    // Timers and queues let go of their weak references a moment after shutdown at most.
                    for _ in 0..<100 where emulator != nil || services != nil || farm != nil { usleep(20_000) }
                    var alive: [String] = []
                    if emulator != nil { alive.append("the emulator") }
                    if services != nil { alive.append("its services") }
                    if farm != nil { alive.append("its device farm") }
                    cont.resume(returning: .success(alive))
                } catch {
                    cont.resume(returning: .failure(error))
                }
            }
        }
        let alive = try freed.get()
        #expect(alive.isEmpty, "still alive after shutdown with no reference left: \(alive.joined(separator: ", "))")
    }
}
