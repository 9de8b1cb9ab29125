import APNsEmulator
import EmulatorControl
import H2Transport
import Synchronization

/// The control API's handler with an input's body on one of the routes that read one: the first byte picks the
/// route, the rest is the body. The emulator is reset every `resetEvery` inputs, so what inputs create (keys,
/// tokens, faults) cannot grow without bound over a long run.
final class ControlAPIHarness: Sendable {
    static let routes: [(method: String, path: String)] = [
        ("POST", "/_emulator/keys"), ("POST", "/_emulator/tokens"), ("POST", "/_emulator/tokens:batch"),
        ("POST", "/_emulator/faults"), ("PUT", "/_emulator/shaping"), ("PUT", "/_emulator/state"),
        ("PUT", "/_emulator/journal/settings"), ("POST", "/_emulator/clock/advance"), ("POST", "/_emulator/reset"),
    ]
    static let resetEvery = 500

    private let api: ControlAPI
    private let count = Atomic<Int>(0)
    private static let instance = OnFirstUse<ControlAPIHarness>()

    static func shared(_ certificates: String) -> ControlAPIHarness {
        instance.get { ControlAPIHarness(certificates: certificates) }
    }

    private init(certificates: String) {
        api = ControlAPI(services: .forFuzzing(certificates, clock: ManualClock()))
    }

    func run(_ input: UnsafeRawBufferPointer) {
        guard let first = input.first else { return }
        let route = Self.routes[Int(first) % Self.routes.count]
        _ = api.handle(HTTP1Request(method: route.method, path: route.path, body: Array(input.dropFirst())))
        if count.wrappingAdd(1, ordering: .relaxed).newValue % Self.resetEvery == 0 {
            _ = api.handle(HTTP1Request(method: "POST", path: "/_emulator/reset"))
        }
    }
}
