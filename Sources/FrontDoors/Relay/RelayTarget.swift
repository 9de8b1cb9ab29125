import APNsEmulator
import Foundation

/// Where the emulator's APNs listeners are, for the relay to dial.
package struct RelayTarget: Sendable {
    package var host: String
    package var productionPort: Int
    package var sandboxPort: Int

    package init(host: String, productionPort: Int, sandboxPort: Int) {
        self.host = host
        self.productionPort = productionPort
        self.sandboxPort = sandboxPort
    }

    /// The started emulator's listeners; a wildcard bind is dialled on loopback.
    package init(dialing endpoints: EmulatorEndpoints) {
        var host = URL(string: endpoints.production)?.host ?? "127.0.0.1"
        if host == "0.0.0.0" { host = "127.0.0.1" } else if host == "::" { host = "::1" }
        self.init(host: host, productionPort: endpoints.productionPort, sandboxPort: endpoints.sandboxPort)
    }
}
