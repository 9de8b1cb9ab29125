import APNsProtocol

/// An accepted push on its way to the devices: when APNs accepted it, when it reaches the device (the
/// acceptance plus the delivery latency drawn for it), and its place in acceptance order for the settle
/// barrier.
struct DeliveryArrival: Sendable {
    let push: AcceptedPush
    let acceptedAt: Millis
    var arrivesAt: Millis
    /// Monotonic nanoseconds when its request was read, for the delivery-latency histogram.
    let acceptedAtNanos: UInt64
    /// 0, 1, 2… in acceptance order.
    let seq: UInt64
}
