import APNsProtocol

/// What a higher layer (the virtual devices) does with every push the provider API accepted.
package protocol AcceptedPushObserver: AnyObject, Sendable {
    /// Called on the connection's event loop once the push is accepted, before its 200 is sent: must be quick
    /// and must not block (take a lock briefly, never wait for I/O).
    /// - Parameter readAt: when its request's bytes were read (monotonic ns), for latencies measured from there.
    func pushAccepted(_ push: AcceptedPush, now: Millis, readAt: UInt64)
}
