/// Why the shared store could not be used: which server, what was being done, what Redis said.
public struct RedisError: Error, CustomStringConvertible {
    public let address: RedisAddress
    /// What the emulator was doing ("connecting", "writing a token", …).
    public let operation: String
    public let detail: String

    init(_ address: RedisAddress, _ operation: String, _ detail: String) {
        self.address = address
        self.operation = operation
        self.detail = detail
    }

    public var description: String {
        "shared state store \(address): \(operation) failed: \(detail). Check that redis-server is running there "
            + "and reachable, or leave out --state-store to keep state in this instance only."
    }
}
