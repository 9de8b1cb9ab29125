import APNsEmulator
import APNsProtocol

/// A higher layer plugged into the running emulator: it sees every accepted push, hears when the manual
/// clock moves and when the state is reset, and adds control endpoints (see `ControlAPIExtension`).
///
/// The virtual devices are one: accepted pushes go to their delivery queue. Keeping the slot here lets
/// the emulator stay ignorant of devices (layers only know the ones below them).
package protocol EmulatorExtension: AcceptedPushObserver, ControlAPIExtension {
    /// The manual clock moved forward through the control API (timers due by `now` should fire).
    func clockAdvanced(to now: Millis)
    /// `POST /_emulator/reset`: forget everything.
    func reset()
    /// The emulator is stopping: stop timers.
    func shutdown()
    /// Prometheus text lines for `/metrics` (default: none).
    func prometheusLines() -> [String]
    /// The emulator's listeners are up: start the extension's own, and add them to `endpoints` (default: none).
    func started(at endpoints: EmulatorEndpoints) throws -> EmulatorEndpoints
    /// Whether `pushAccepted` does anything: only extensions that do are called on the push path (default: true).
    var observesPushes: Bool { get }
}

extension EmulatorExtension {
    /// Prometheus text lines the extension adds to `/metrics` (with their `# HELP`/`# TYPE`).
    package func prometheusLines() -> [String] { [] }

    package func started(at endpoints: EmulatorEndpoints) throws -> EmulatorEndpoints { endpoints }

    package var observesPushes: Bool { true }
}
