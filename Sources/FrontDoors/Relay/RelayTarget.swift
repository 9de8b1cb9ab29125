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
}
