/// What the app's delegate does with one callback: forward it (the default), drop it, forward it later, or
/// forward it with changed arguments (a null one makes the plugin throw).
public struct CallbackScript: Sendable, Equatable, Encodable {
    public var drop: Bool
    /// Forwarded this long after the OS called the delegate (0: at once).
    public var delayMillis: Int64
    public var arguments: ForwardedArguments

    public init(drop: Bool = false, delayMillis: Int64 = 0, arguments: ForwardedArguments = ForwardedArguments()) {
        self.drop = drop
        self.delayMillis = delayMillis
        self.arguments = arguments
    }

    enum CodingKeys: String, CodingKey { case drop, delayMs, with }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        if drop { try c.encode(true, forKey: .drop) }
        if delayMillis > 0 { try c.encode(delayMillis, forKey: .delayMs) }
        if arguments != ForwardedArguments() { try c.encode(arguments, forKey: .with) }
    }
}
