import APNsProtocol
import Testing

@Suite struct ProviderTokenRulesTests {
    let twenty: Int64 = 20 * 60 * 1000

    func parsed(_ key: TestKey, iat: Int64, team: String? = nil) throws -> (String, ProviderToken) {
        let text = try key.token(issuedAt: iat, teamId: team)
        return (text, try ProviderToken(compact: text.utf8))
    }

    @Test func firstTokenBindsAndTheSameTokenIsAlwaysFine() throws {
        let key = try TestKey()
        var rules = ProviderTokenRules()
        let (text, token) = try parsed(key, iat: 100)
        #expect(rules.present(text, token: token, key: key.record, now: 0, refreshIntervalMillis: twenty) == .accept(isNewToken: true))
        #expect(rules.boundTeamId == "TEAM000001")
        #expect(rules.present(text, token: token, key: key.record, now: 1, refreshIntervalMillis: twenty) == .accept(isNewToken: false))
    }

    @Test func newTokenWithinTwentyMinutesIsTooManyUpdatesAndChangesNothing() throws {
        let key = try TestKey()
        var rules = ProviderTokenRules()
        let (a, ta) = try parsed(key, iat: 100)
        let (b, tb) = try parsed(key, iat: 200)
        _ = rules.present(a, token: ta, key: key.record, now: 0, refreshIntervalMillis: twenty)
        #expect(rules.present(b, token: tb, key: key.record, now: twenty - 1, refreshIntervalMillis: twenty) == .reject(.tooManyProviderTokenUpdates))
        #expect(rules.currentToken == a)
        #expect(rules.present(b, token: tb, key: key.record, now: twenty, refreshIntervalMillis: twenty) == .accept(isNewToken: true))
        #expect(rules.currentToken == b)
    }

    @Test func anotherTeamOnTheConnectionIsInvalid() throws {
        let key = try TestKey()
        let other = try TestKey(keyId: "KEY0000002", teamId: "TEAM000002")
        var rules = ProviderTokenRules()
        let (a, ta) = try parsed(key, iat: 100)
        let (b, tb) = try parsed(other, iat: 100)
        _ = rules.present(a, token: ta, key: key.record, now: 0, refreshIntervalMillis: twenty)
        #expect(rules.present(b, token: tb, key: other.record, now: twenty * 2, refreshIntervalMillis: twenty) == .reject(.invalidProviderToken))
    }

    @Test func unrelatedKeyOfTheSameTeamIsRefusedButARelatedOneIsNot() throws {
        let first = try TestKey(keyId: "KEY0000001")
        let unrelated = try TestKey(keyId: "KEY0000002")
        let related = try TestKey(keyId: "KEY0000003", kind: .topic, environment: .production, topics: ["com.example.app"], relatedKeyId: "KEY0000001")
        var rules = ProviderTokenRules()
        let (a, ta) = try parsed(first, iat: 100)
        _ = rules.present(a, token: ta, key: first.record, now: 0, refreshIntervalMillis: twenty)
        let (b, tb) = try parsed(unrelated, iat: 100)
        #expect(rules.present(b, token: tb, key: unrelated.record, now: twenty * 2, refreshIntervalMillis: twenty) == .reject(.unrelatedKeyIdInToken))
        let (c, tc) = try parsed(related, iat: 100)
        #expect(rules.present(c, token: tc, key: related.record, now: twenty * 2, refreshIntervalMillis: twenty) == .accept(isNewToken: true))
    }
}
