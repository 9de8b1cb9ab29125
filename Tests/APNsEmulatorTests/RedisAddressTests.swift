import StateStore
import Testing

/// `--state-store` URLs: what is accepted, and that everything the emulator would ignore is refused, saying what
/// was expected.
@Suite("Redis addresses")
struct RedisAddressTests {
    @Test(arguments: [
        ("redis://127.0.0.1", RedisAddress(host: "127.0.0.1", port: 6379, database: 0)),
        ("redis://redis:6380", RedisAddress(host: "redis", port: 6380, database: 0)),
        ("redis://redis:6380/3", RedisAddress(host: "redis", port: 6380, database: 3)),
        ("redis://redis/", RedisAddress(host: "redis", port: 6379, database: 0)),
        ("redis://[::1]:6379/15", RedisAddress(host: "::1", port: 6379, database: 15)),
    ])
    func aUsableURLNamesHostPortAndDatabase(text: String, expected: RedisAddress) throws {
        #expect(try RedisAddress(parsing: text) == expected)
    }

    @Test(arguments: [
        ("http://127.0.0.1:6379", "expected redis://HOST:PORT[/DB]"),
        ("rediss://127.0.0.1:6379", "rediss:// and unix sockets are not supported"),
        ("redis://:secret@127.0.0.1:6379", "a user or password is not supported"),
        ("redis://127.0.0.1:6379?timeout=1", "query options are not supported"),
        ("redis://127.0.0.1:0", "the port must be a number 1–65535"),
        ("redis://127.0.0.1:http", "the port must be a number 1–65535"),
        ("redis://127.0.0.1:6379/16", "the database after / must be a number 0–15"),
        ("redis://:6379", "the host is missing"),
        ("redis://[::1:6379", "an IPv6 host needs its ]"),
    ])
    func anythingElseIsRefusedSayingWhatWasExpected(text: String, expected: String) {
        #expect {
            try RedisAddress(parsing: text)
        } throws: { error in
            guard let error = error as? RedisAddressError else { return false }
            return error.description.hasPrefix("--state-store '\(text)': ") && error.description.contains(expected)
        }
    }

    @Test func theDescriptionIsTheCanonicalURL() throws {
        #expect(try RedisAddress(parsing: "redis://redis").description == "redis://redis:6379/0")
        #expect(try RedisAddress(parsing: "redis://[::1]:7000/2").description == "redis://[::1]:7000/2")
    }
}
