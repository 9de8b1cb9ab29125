import APNsEmulator
import EmulatorControl
import Foundation
import FrontDoors
import Synchronization
import VirtualDevices

/// The emulator one scenario runs against: its control API, its APNs URLs and CA, and how to stop it.
final class EmulatorTarget: Sendable {
    let control: any ControlClient
    let endpoints: EmulatorEndpoints
    let certificatesDirectory: String
    private let emulator: Emulator?

    private init(control: any ControlClient, endpoints: EmulatorEndpoints, certificatesDirectory: String,
                 emulator: Emulator?) {
        self.control = control
        self.endpoints = endpoints
        self.certificatesDirectory = certificatesDirectory
        self.emulator = emulator
    }

    /// A fresh in-process emulator on free ports with in-memory state, on the scenario's clock.
    static func inProcess(certificatesDirectory: String, clock: Scenario.ClockMode,
                          options: Scenario.EmulatorOptions = .init()) throws -> EmulatorTarget {
        var c = EmulatorConfiguration.inProcess(certificatesDirectory: certificatesDirectory, eventLoops: 1,
                                                shutdownGraceSeconds: 0.5)
        if let v = options.tokenRateLimit { c.tokenRateLimit = v }
        if let v = options.tokenRateWindowMillis { c.tokenRateWindowSeconds = Double(v) / 1000 }
        if let v = options.lowPriorityDelayMillis { c.lowPriorityDelaySeconds = Double(v) / 1000 }
        if let v = options.maximumChannelsPerApp { c.maximumChannelsPerApp = v }
        if options.realism == "strict" { c.connectionBehavior = .strict }
        let (emulator, _) = try Emulator.withFrontDoors(
            configuration: c, clock: clock == .manual ? ManualClock() : SystemClock())
        let endpoints: EmulatorEndpoints
        do {
            endpoints = try emulator.start()
        } catch {
            emulator.shutdown()
            throw error
        }
        let api = ControlAPI(services: emulator.services, controlToken: nil, extensions: emulator.extensions,
                             transportCounters: { emulator.transportCounters })
        return EmulatorTarget(control: InProcessControl(api: api), endpoints: endpoints,
                              certificatesDirectory: certificatesDirectory, emulator: emulator)
    }

    /// A running emulator at `controlURL`: reset before the scenario (its state is the scenario's), or, with
    /// `reset` false, left as it is but for the scenario's own device ids, removed so they start fresh.
    static func remote(controlURL: String, controlToken: String?, certificatesDirectory: String,
                       clock: Scenario.ClockMode, reset: Bool = true, deviceIds: [String] = []) async throws
        -> EmulatorTarget
    {
        let control = HTTPControl(base: controlURL.hasSuffix("/") ? String(controlURL.dropLast()) : controlURL,
                                  token: controlToken)
        let ready = try await control.object("GET", "/_emulator/endpoints")
        guard let production = ready["production"] as? String, let sandbox = ready["sandbox"] as? String,
              let ca = ready["ca"] as? String else {
            throw RunnerError("\(controlURL)/_emulator/endpoints did not name the listeners")
        }
        if reset {
            _ = try await control.json("POST", "/_emulator/reset", expecting: [204])
        } else {
            for id in deviceIds { _ = try await control.json("DELETE", "/_emulator/devices/\(id)", expecting: [204, 404]) }
        }
        let c = try await control.object("GET", "/_emulator/clock")
        let controllable = c["controllable"] as? Bool == true
        switch clock {
        case .manual:
            guard controllable else {
                throw RunnerError("the scenario needs a manual clock: start the emulator with --manual-clock")
            }
            _ = try await control.json("POST", "/_emulator/clock/freeze")
        case .real:
            // A manual clock left frozen by an earlier scenario runs again for a real-time one.
            if controllable { _ = try await control.json("POST", "/_emulator/clock/resume") }
        }
        return EmulatorTarget(
            control: control,
            endpoints: EmulatorEndpoints(production: production, sandbox: sandbox, control: controlURL, ca: ca),
            certificatesDirectory: certificatesDirectory, emulator: nil)
    }

    /// Stops an in-process emulator (blocking: call off the cooperative pool).
    func stop() {
        emulator?.shutdown()
    }
}
