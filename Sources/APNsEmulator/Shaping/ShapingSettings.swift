import Foundation

/// How the emulator shapes its answers like a loaded Apple front end: latency, stream limits, rate limits,
/// connection recycling and brownouts. Set at start (`serve` flags) and live (`PUT /_emulator/shaping`).
public struct ShapingSettings: Sendable, Codable, Equatable {
    /// Added before each answer.
    public var latency: Latency
    /// SETTINGS_MAX_CONCURRENT_STREAMS for every connection (changes reach a connection at its next request).
    public var maxConcurrentStreams: Int
    /// Pushes per device token per `tokenRateWindowMs` before 429 TooManyRequests (0: off).
    public var tokenRateLimit: Int
    public var tokenRateWindowMs: Int64
    /// Requests per connection per second before 429 TooManyRequests (0: off).
    public var connectionRateLimit: Int
    /// GOAWAY (NO_ERROR) once a connection has carried this many requests (0: never).
    public var goAwayAfterRequests: Int
    /// GOAWAY (NO_ERROR) at the first request after a connection is this old (0: never).
    public var goAwayAfterSeconds: Double
    /// Share of requests (0–1) answered `brownoutStatus` instead (ServiceUnavailable or InternalServerError).
    public var brownoutShare: Double
    public var brownoutStatus: Int

    public enum Latency: Sendable, Codable, Equatable {
        case none
        case fixed(ms: Double)
        case uniform(minMs: Double, maxMs: Double)
        /// Log-normal with this median and 99th percentile (how real service latency is usually shaped).
        case logNormal(medianMs: Double, p99Ms: Double)

        /// A delay in milliseconds; `uniform01` and `normal` are draws from the caller's generator.
        package func sample(uniform01: Double, normal: Double) -> Double {
            switch self {
            case .none: return 0
            case .fixed(let ms): return ms
            case .uniform(let a, let b): return a + (b - a) * uniform01
            case .logNormal(let median, let p99):
                let sigma = max(0, log(p99) - log(median)) / 2.326_347_874
                return exp(log(median) + sigma * normal)
            }
        }

        private enum CodingKeys: String, CodingKey { case type, ms, minMs, maxMs, medianMs, p99Ms }

        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            switch try c.decode(String.self, forKey: .type) {
            case "none": self = .none
            case "fixed": self = .fixed(ms: try c.decode(Double.self, forKey: .ms))
            case "uniform": self = .uniform(minMs: try c.decode(Double.self, forKey: .minMs), maxMs: try c.decode(Double.self, forKey: .maxMs))
            default: self = .logNormal(medianMs: try c.decode(Double.self, forKey: .medianMs), p99Ms: try c.decode(Double.self, forKey: .p99Ms))
            }
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            switch self {
            case .none: try c.encode("none", forKey: .type)
            case .fixed(let ms): try c.encode("fixed", forKey: .type); try c.encode(ms, forKey: .ms)
            case .uniform(let a, let b):
                try c.encode("uniform", forKey: .type); try c.encode(a, forKey: .minMs); try c.encode(b, forKey: .maxMs)
            case .logNormal(let m, let p):
                try c.encode("logNormal", forKey: .type); try c.encode(m, forKey: .medianMs); try c.encode(p, forKey: .p99Ms)
            }
        }
    }

    public init(latency: Latency = .none, maxConcurrentStreams: Int = 1000, tokenRateLimit: Int = 0,
                tokenRateWindowMs: Int64 = 1000, connectionRateLimit: Int = 0, goAwayAfterRequests: Int = 0,
                goAwayAfterSeconds: Double = 0, brownoutShare: Double = 0, brownoutStatus: Int = 503) {
        self.latency = latency
        self.maxConcurrentStreams = maxConcurrentStreams
        self.tokenRateLimit = tokenRateLimit
        self.tokenRateWindowMs = tokenRateWindowMs
        self.connectionRateLimit = connectionRateLimit
        self.goAwayAfterRequests = goAwayAfterRequests
        self.goAwayAfterSeconds = goAwayAfterSeconds
        self.brownoutShare = brownoutShare
        self.brownoutStatus = brownoutStatus
    }

    /// Whether anything per-request is on (the handler skips shaping entirely otherwise).
    var shapesRequests: Bool {
        latency != .none || connectionRateLimit > 0 || goAwayAfterRequests > 0 || goAwayAfterSeconds > 0
            || brownoutShare > 0
    }
}
