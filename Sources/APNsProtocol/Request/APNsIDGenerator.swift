/// Generates `apns-id` values fast: xoshiro256** seeded once from the system generator.
///
/// `SystemRandomNumberGenerator` costs a getrandom(2) system call per draw (seen in the bench profile);
/// an apns-id needs uniqueness, not secrecy, so one per connection seeded from the kernel is enough.
public struct APNsIDGenerator: RandomNumberGenerator, Sendable {
    private var s0, s1, s2, s3: UInt64

    public init() {
        var system = SystemRandomNumberGenerator()
        repeat {
            s0 = system.next(); s1 = system.next(); s2 = system.next(); s3 = system.next()
        } while s0 | s1 | s2 | s3 == 0
    }

    public mutating func next() -> UInt64 {
        let result = rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotl(s3, 45)
        return result
    }

    private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A random lowercase version-4 UUID.
    public mutating func generate() -> String {
        APNsID.generate(using: &self)
    }
}
