/// Closed request streams kept for reuse by every server connection on one event loop.
///
/// Per loop rather than per connection so that the stream a request gets is the one the loop's previous
/// request used, its header and body buffers still in cache. With one pool per connection, eight load
/// generator connections of 100 streams each cycled ~800 streams (~1.5 MB of buffers, three times this
/// machine's per-core L2), and reset and the first header copy stalled on cache misses at every request
/// (~2.5% of server CPU in `perf`). An idle connection also keeps no streams this way.
struct ServerStreamPool {
    private var streams: [ServerStream] = []

    /// Enough for a dozen clients each keeping ~100 requests in flight, as load generators and busy senders
    /// do: a smaller pool discards what the next batch of HEADERS needs and every request then pays for a new
    /// stream and its growing buffers (~4 allocations).
    static let limit = 1200
    /// Streams whose buffers grew past these (a large payload, huge headers) are dropped rather than kept:
    /// the pool lives as long as the loop, so it holds at most ~1200 × 12 KiB ≈ 14 MiB per loop, ~2.5 MiB
    /// for push-sized requests (~2 KiB a stream).
    static let maxBodyCapacity = 8 * 1024
    static let maxHeaderBytes = 4 * 1024

    /// A stream to reuse, the most recently returned first, or a new one.
    mutating func take() -> ServerStream {
        streams.popLast() ?? ServerStream()
    }

    /// Returns a closed stream for reuse (dropped once the pool is full, or when its buffers grew large).
    /// Takes the caller's reference (consumed: appending a borrowed stream retained it and the caller released it).
    mutating func give(_ stream: consuming ServerStream) {
        guard streams.count < Self.limit, stream.body.capacity <= Self.maxBodyCapacity,
              stream.headers.storageBytes <= Self.maxHeaderBytes else { return }
        streams.append(stream)
    }
}
