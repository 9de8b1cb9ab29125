/// A `--state-store` value that is not a usable Redis URL.
public struct RedisAddressError: Error, CustomStringConvertible, Equatable {
    public let text: String
    public let expected: String

    init(_ text: String, _ expected: String) {
        self.text = text
        self.expected = expected
    }

    public var description: String { "--state-store '\(text)': \(expected)" }
}
