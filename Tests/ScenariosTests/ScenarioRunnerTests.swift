import Foundation
import Testing

@testable import Scenarios

/// The runner must fail what is wrong, at the right place: a runner that passed everything would show here.
@Suite("ScenarioRunner: failures are reported at their line", .timeLimit(.minutes(2)))
struct ScenarioRunnerTests {
    @Test func correctScenarioPasses() async throws {
        let results = try await run(preamble + """
              - call: RequestAuthorization
                options: [1, 3]
                expect: {case: Success, granted: true}
              - call: GetToken
                save: token
              - push: {payload: {aps: {alert: hi, badge: 2}}}
                expect: {status: 200, fate: shown}
              - expect: {badge: 2, events: [{type: TokenRefreshed, token: "${token}"}, NotificationPresented]}
            """)
        #expect(results.map(\.outcome) == [.passed], "\(results.flatMap(\.failures))")
    }

    @Test func aPushTheEmulatorNeverAnswersInTimeFailsTheStepInsteadOfHanging() async throws {
        let started = ContinuousClock.now
        let result = try #require(try await run(preamble + """
              - call: GetToken
              - fault: {delay: 60s}
              - push: {payload: {aps: {alert: hi}}}
                expect: {status: 200}
              - expect: {badge: 99}
            """, file: "slow.yaml", responseTimeout: .milliseconds(500)).first)
        #expect(result.outcome == .failed)
        #expect(result.failures.map(\.description) == [
            "slow.yaml:8:5: step 3 (push): no response within 0.5 seconds (a delay fault longer than that, or a stalled"
                + " emulator); the connection was closed",
        ])
        // Well before the 60 s delay would have answered: the deadline ended the step. The run's start and
        // shutdown take seconds on a loaded machine, so the margin is wide.
        #expect(ContinuousClock.now - started < .seconds(45))
    }

    @Test func wrongExpectationFailsAtItsLineWithExpectedAndActual() async throws {
        let results = try await run(preamble + """
              - call: RequestAuthorization
                options: [1, 3]
              - call: GetToken
              - push: {payload: {aps: {alert: hi, badge: 2}}}
                expect: {status: 200}
              - expect:
                  badge: 3
                  events: [TokenRefreshed, {type: NotificationPresented, notification: {body: bye}}]
              - call: GetToken
            """, file: "wrong.yaml")
        let result = try #require(results.first)
        #expect(result.outcome == .failed)
        #expect(result.failures.map(\.description) == [
            "wrong.yaml:12:14: expect.badge: expected 3, got 2",
            "wrong.yaml:13:83: expect.events[1].notification.body: expected bye, got hi",
        ])
    }

    @Test func wrongResponseExpectationNamesTheField() async throws {
        let result = try #require(try await run(preamble + """
              - call: GetToken
              - push: {environment: production}
                expect: {status: 200, reason: <absent>}
              - expect: {badge: 99}
            """, file: "r.yaml").first)
        #expect(result.failures.map(\.description) == [
            "r.yaml:8:22: expect.status: expected 200, got 400",
            "r.yaml:8:35: expect.reason: expected absent, got BadDeviceToken",
        ], "every failing expectation of the failing step is reported")
    }

    @Test func stepTheEmulatorRefusesFailsAtTheStep() async throws {
        let result = try #require(try await run(preamble + """
              - action: tap
                notification: not-there
            """, file: "s.yaml").first)
        let failure = try #require(result.failures.first)
        #expect(failure.location == "s.yaml:6:5")
        #expect(failure.what == "step 1 (action)")
        #expect(failure.message?.contains("no notification 'not-there'") == true)
    }

    @Test func eventModesMatchAsDocumented() async throws {
        let results = try await run(preamble + """
              - call: RequestAuthorization
                options: [3]
              - call: GetToken
              - push: {}
              - push: {}
              - expect:
                  events: {ordered: [TokenRefreshed, NotificationPresented]}
              - expect:
                  events: {unordered: [NotificationPresented, TokenRefreshed]}
              - expect:
                  events: {none: [NotificationOpened]}
              - expect:
                  events: {exactly: [TokenRefreshed, NotificationPresented]}
            """, file: "e.yaml")
        #expect(results.first?.failures.map(\.description) == [
            "e.yaml:18:15: expect.events: expected 2 events, got 3: [TokenRefreshed, NotificationPresented, NotificationPresented]",
        ])
    }

    @Test func refusedFaultFailsTheStepAndOwnPushesDoNotSatisfyAWait() async throws {
        let refused = try #require(try await run(preamble + """
              - fault: {reason: BadDeviceToken, token: "not hex"}
            """, file: "f.yaml").first)
        #expect(refused.failures.first?.message?.contains("refused it (400)") == true, "\(refused.failures)")
        let waited = try #require(try await run(preamble + """
              - call: GetToken
              - push: {payload: {aps: {alert: Welcome}}}
              - wait-for-push: {payloadContains: Welcome, timeout: 300ms}
            """, file: "w.yaml").first)
        #expect(waited.failures.first?.message?.contains("no matching push arrived") == true, "\(waited.failures)")
    }

    @Test func fieldNamedLikeAnOperatorIsMatchedAsTheField() {
        let m = JSONMatcher(variables: [:])
        #expect(m.match(try! #require(try YAMLLoader.load("{length: 64}")), ["length": 64, "token": "ab"]) == nil)
        #expect(m.match(try! #require(try YAMLLoader.load("{length: 2}")), "ab") == nil)
    }

    @Test func matcherOperators() {
        let m = JSONMatcher(variables: ["x": "7"])
        func node(_ text: String) throws -> YAMLNode { try #require(try YAMLLoader.load(text)) }
        #expect(m.match(try! node("{contains: ell}"), "hello") == nil)
        #expect(m.match(try! node("{matches: \"h.*o\"}"), "hello") == nil)
        #expect(m.match(try! node("{oneOf: [a, b]}"), "b") == nil)
        #expect(m.match(try! node("{not: a}"), "a") != nil)
        #expect(m.match(try! node("{greaterThan: 5}"), 6) == nil)
        #expect(m.match(try! node("{length: 2}"), [1, 2]) == nil)
        #expect(m.match(try! node("\"${x}\""), 7) == nil)
        #expect(m.match(try! node("<any>"), nil) != nil)
        #expect(m.match(try! node("null"), nil) == nil)
        #expect(m.match(try! node("{a: 1}"), ["a": 1, "b": 2]) == nil, "mappings match a subset")
        #expect(m.match(try! node("[1]"), [1, 2]) != nil, "lists match whole")
    }
}
