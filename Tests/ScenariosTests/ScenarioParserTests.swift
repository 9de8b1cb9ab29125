import Foundation
import Testing

@testable import Scenarios

/// Broken files get file:line:column and what was expected — every message pinned, so a vague or
/// misplaced one shows up here.
@Suite("ScenarioParser: errors")
struct ScenarioParserTests {
    @Test func goodFileParsesIntoDevicesSendersAndSteps() throws {
        let scenarios = try ScenarioParser(file: "good.yaml").parse(preamble + """
              - call: GetToken
                save: token
                expect: {case: Success}
              - push: {payload: {aps: {alert: hi}}}
                expect: {status: 200, fate: shown}
              - advance: 20m
              - expect: {badge: 0, events: [TokenRefreshed]}
            """)
        let s = try #require(scenarios.first)
        #expect(s.name == "t")
        #expect(s.devices.map(\.id) == ["phone"])
        #expect(s.senders.keys.sorted() == ["default"])
        #expect(s.steps.count == 4)
        #expect(s.steps[0].save == "token")
        #expect(s.steps[3].expectations.map(\.label) == ["badge", "events"])
        guard case .advance(let ms) = s.steps[2].kind else {
            Issue.record("advance expected")
            return
        }
        #expect(ms == 1_200_000)
    }

    @Test func jsonFilesAreScenariosToo() throws {
        let json = #"{"name": "j", "devices": [{"id": "p", "apps": [{"bundleId": "com.example.app"}]}], "#
            + #""steps": [{"call": "GetToken", "expect": {"case": "Success"}}]}"#
        let s = try #require(try ScenarioParser(file: "j.json").parse(json).first)
        #expect(s.name == "j")
        #expect(s.steps.first?.expectations.first?.label == "case")
        #expect(parseError(#"{"name": "j", "steps": [{"call": "GetTokn"}]}"#, file: "j.json")?.hasPrefix(
            "j.json:1:34: unknown plugin call 'GetTokn'") == true)
    }

    @Test func severalDocumentsAreSeveralScenarios() throws {
        let text = preamble + "  - call: GetToken\n---\n" + preamble.replacingOccurrences(of: "name: t", with: "name: u")
            + "  - call: GetToken\n"
        #expect(try ScenarioParser(file: "m.yaml").parse(text).map(\.name) == ["t", "u"])
    }

    @Test(arguments: [
        ("name: x\nsteps: [\n", "s.yaml:3:1: invalid YAML: while parsing a flow node: did not find expected node content"),
        ("", "s.yaml:1:1: the file holds no scenario"),
        ("- a\n", "s.yaml:1:1: expected a scenario as a mapping, got a list"),
        ("steps: []\n", "s.yaml:1:1: a scenario is missing 'name' (a string)"),
        ("name: x\n", "s.yaml:1:1: a scenario is missing 'steps' (a list of steps)"),
        ("name: x\nstep: []\nsteps: []\n",
         "s.yaml:2:1: unknown key 'step' in a scenario (did you mean 'steps'?); expected one of: name, tags, description, clock, include, profiles, senders, devices, emulator, files, steps"),
        ("name: x\nclock: fast\nsteps: []\n", "s.yaml:2:8: 'clock' must be manual or real, got 'fast'"),
        ("name: x\nsteps: {}\n", "s.yaml:2:8: 'steps' must be a list, got a mapping"),
        ("name: x\nname: y\nsteps: []\n", "s.yaml:2:1: invalid YAML: duplicate key 'name'"),
    ])
    func scenarioLevelErrors(_ text: String, _ message: String) {
        #expect(parseError(text) == message)
    }

    @Test(arguments: [
        ("  - cal: GetToken\n",
         "s.yaml:6:5: a step needs one of: call, notify, action, device-action, install, uninstall, push, wait-for-push, advance, control, mint, fault, fcm, fcm-legacy, onesignal, expect (got: cal); 'cal' — did you mean 'call'?"),
        ("  - call: GetTokens\n",
         "s.yaml:6:11: unknown plugin call 'GetTokens'; expected one of: RequestAuthorization, GetNotificationSettings, GetToken, GetProviderEnvironment, GetColdStartNotification, SetBadgeCount, Cancel, CancelGetToken, NotifyDidRegisterForRemoteNotifications, NotifyDidFailToRegister, NotifyWillPresentNotification, NotifyDidReceiveResponse, NotifyColdStartNotification, LocalRequestAuthorization, LocalGetNotificationSettings, LocalSetBadgeCount"),
        ("  - call: RequestAuthorization\n",
         "s.yaml:6:5: RequestAuthorization needs 'options' (a list of UNAuthorizationOption numbers 0–7; null makes the plugin throw)"),
        ("  - call: RequestAuthorization\n    options: [9]\n",
         "s.yaml:7:14: 'options' must be a list of numbers from 0 (Unspecified) to 7 (Provisional)"),
        ("  - call: GetToken\n    count: 3\n", "s.yaml:7:12: 'count' does not apply to GetToken"),
        ("  - action: shake\n",
         "s.yaml:6:13: unknown user action 'shake'; expected one of: launch, foreground, background, forceQuit, terminate, tap, action, dismiss, setNotificationsEnabled, answerPrompt, reattachDelegate, postLocalNotification, setNotificationCategories, expand, collapse, setCollectionEnabled, recordBannerClick"),
        ("  - action: tap\n", "s.yaml:6:5: action 'tap' needs 'notification' (an apns-id, ${saved}, or last)"),
        ("  - action: launch\n    text: hi\n", "s.yaml:7:11: 'text' does not apply to action 'launch'"),
        ("  - call: GetToken\n    device: tablet\n", "s.yaml:7:13: no device 'tablet' in this scenario (devices: phone)"),
        ("  - push: {sender: ghost}\n", "s.yaml:6:20: unknown sender 'ghost' (declared: default)"),
        ("  - push: {environment: staging}\n", "s.yaml:6:25: 'environment' must be production or sandbox, got 'staging'"),
        ("  - push: {conection: new}\n",
         "s.yaml:6:12: unknown key 'conection' in push (did you mean 'connection'?); expected one of: token, to, sender, environment, headers, payload, method, path, host, connection"),
        ("  - advance: soon\n", "s.yaml:6:14: 'advance' must be a duration such as 30s, 500ms, 20m or 1h (0 or more), got a scalar (soon)"),
        ("  - advance: -5s\n", "s.yaml:6:14: 'advance' must be a duration such as 30s, 500ms, 20m or 1h (0 or more), got a scalar (-5s)"),
        ("  - device-action: explode\n", "s.yaml:6:20: 'device-action' must be one of online, offline, restore, focusOn, focusOff, mute, unmute, got 'explode'"),
        ("  - control: {path: /health}\n", "s.yaml:6:21: 'path' must be a control path under /_emulator/"),
        ("  - expect: {badges: 2}\n",
         "s.yaml:6:14: unknown expectation 'badges' for this expect step; expected one of: app, events, calls, forwards, coldStart, coldStartPeek, badge, notifications, fate, fates, deviceToken, sdk, sdkRecords, sdkDecisions"),
        ("  - expect: {badge: two}\n", "s.yaml:6:21: 'badge' must be an integer"),
        ("  - expect: {events: {sometimes: []}}\n",
         "s.yaml:6:22: 'events' must be a list (exactly these, in order) or one of exactly: [...], ordered: [...], unordered: [...], contains: [...], none: [...]"),
        ("  - expect: {fate: shown}\n", "s.yaml:6:20: 'fate' outside a push step needs 'push: ${saved-apns-id}'"),
        ("  - push: {}\n    expect: {fate: {was: shown}}\n",
         "s.yaml:7:21: unknown fate check 'was'; expected one of: push, is, steps, reason, code, codes, device"),
        ("  - mint: default\n", "s.yaml:6:5: 'mint' needs 'save: name' to keep the token"),
        ("  - action: launch\n    save: x\n",
         "s.yaml:7:11: 'save' does not apply to action: only call, push, wait-for-push, control, fcm, fcm-legacy, onesignal, fault and mint steps have a value to keep"),
        ("  - expect: {badge: 0}\n    save: x\n",
         "s.yaml:7:11: 'save' does not apply to an expect step: only call, push, wait-for-push, control, fcm, fcm-legacy, onesignal, fault and mint steps have a value to keep"),
        ("  - advance: 1e300s\n", "s.yaml:6:14: 'advance' must be a duration such as 30s, 500ms, 20m or 1h (0 or more), got a scalar (1e300s)"),
        ("  - fault: {delay: -5s}\n", "s.yaml:6:20: 'delay' must be a duration such as 30s, 500ms, 20m or 1h (0 or more), got a scalar (-5s)"),
        ("  - install: {bundleId: com.x, build: nightly}\n",
         "s.yaml:6:39: app: field 'build' must be one of \"development\", \"adHoc\", \"testFlight\", \"appStore\", \"simulator\", \"appClip\" (got \"nightly\")"),
        ("  - call: GetToken\n    call: GetToken\n", "s.yaml:7:5: invalid YAML: duplicate key 'call'"),
        ("  - fault: {reason: Nope}\n", "s.yaml:6:21: 'Nope' is not an APNs reason (e.g. BadDeviceToken, ServiceUnavailable)"),
        ("  - fault: {count: 2}\n",
         "s.yaml:6:12: a fault needs exactly one of 'reason' (an APNs reason), 'delay' (a duration) or 'action' (reset-stream, goaway, shutdown); or 'fault: clear'"),
    ])
    func stepErrors(_ step: String, _ message: String) {
        #expect(parseError(preamble + step) == message)
    }

    @Test(arguments: [
        ("  - push: {token: \"${tokn}\"}\n",
         "s.yaml:6:19: undefined variable '${tokn}': no earlier step saves it; nothing is saved before this point (a step keeps a value with 'save:' or 'capture:')"),
        ("  - call: GetToken\n    save: token\n  - push: {token: \"${tokn}\"}\n",
         "s.yaml:8:19: undefined variable '${tokn}': no earlier step saves it (did you mean '${token}'?); saved before this point: token"),
        // A step's own saved value exists only once it has run: usable in its expect, not in what it sends.
        ("  - push: {headers: {apns-collapse-id: \"${id}\"}}\n    save: id\n",
         "s.yaml:6:40: undefined variable '${id}': no earlier step saves it; nothing is saved before this point (a step keeps a value with 'save:' or 'capture:')"),
    ])
    func undefinedVariablesAreRefusedWhereTheyAreUsed(_ steps: String, _ message: String) {
        #expect(parseError(preamble + steps) == message)
    }

    @Test func anErrorInAnIncludedProfileNamesTheIncludedFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fragments = dir.appendingPathComponent("_devices.yaml")
        try "profiles:\n  phone:\n    platfrom: iOS\n".write(to: fragments, atomically: true, encoding: .utf8)
        let scenario = dir.appendingPathComponent("s.yaml").path
        let text = "name: x\ninclude: [_devices.yaml]\ndevices:\n  - {profile: phone, id: a}\nsteps: []\n"
        #expect(parseError(text, file: scenario) == fragments.standardized.path
            + ":3:15: device profile: unknown field 'platfrom' (expected one of: id, name, platform, osVersion, online, focus, muted, backgroundBudgetPerHour, apps)")
        // The device's own fields still point at the scenario.
        let own = "name: x\ninclude: [_devices.yaml]\ndevices:\n  - {id: a, online: maybe}\nsteps: []\n"
        #expect(parseError(own, file: scenario)?.hasPrefix(scenario + ":4:21: device: ") == true, "\(parseError(own, file: scenario) ?? "")")
    }

    @Test func savedBuiltInAndOwnExpectVariablesAreDefined() {
        #expect(parseError(preamble + """
              - call: GetToken
                save: token
              - push:
                  token: ${token}
                  headers: {apns-expiration: "${nowSeconds+3600}", apns-collapse-id: "${x*10}", x-past: "${nowSeconds-60}"}
                  payload: {dir: "${scenarioDir}", at: "${now}"}
                save: id
                expect: {fate: {push: "${id}", is: shown}}
              - action: tap
                notification: ${id}
                note: a note may mention ${anything}; it is never sent
            """) == nil)
    }

    @Test(arguments: [
        ("name: x\ndevices:\n  - id: a\n    platfrom: iOS\nsteps: []\n",
         "s.yaml:4:15: device: unknown field 'platfrom' (expected one of: id, name, platform, osVersion, online, focus, muted, backgroundBudgetPerHour, apps)"),
        ("name: x\ndevices:\n  - id: a\n    apps: [{bundleId: com.a, delegate: {forwarding: sometimes}}]\nsteps: []\n",
         "s.yaml:4:53: device: field 'apps[0].delegate.forwarding' must be one of \"correct\", \"none\", \"includingLocal\" (got \"sometimes\")"),
        ("name: x\ndevices:\n  - {id: a}\n  - {id: a}\nsteps: []\n", "s.yaml:4:5: device id 'a' is used twice"),
        ("name: x\ndevices:\n  - {id: a, expectError: budget}\nsteps: []\n",
         "s.yaml:3:26: the device was expected to be refused (expectError: budget), but it is valid"),
        ("name: x\ndevices:\n  - {id: a, platform: tvOS, expectError: budget}\nsteps: []\n",
         "s.yaml:3:42: the device was refused with \"field 'platform' must be one of \"iOS\", \"macOS\" (got \"tvOS\")\", which does not contain \"budget\""),
        ("name: x\ndevices:\n  - {profile: nope}\nsteps: []\n",
         "s.yaml:3:15: unknown profile 'nope' (declared: )"),
        ("name: x\nsenders: {s: {auth: magic}}\nsteps: []\n", "s.yaml:2:21: 'auth' must be token, certificate or none, got 'magic'"),
        ("name: x\nsenders: {s: {auth: certificate}}\nsteps: []\n",
         "s.yaml:2:14: a certificate sender needs 'environment: production' or 'sandbox'"),
        ("name: x\nemulator: {realism: paranoid}\nsteps: []\n", "s.yaml:2:21: 'realism' must be documented or strict, got 'paranoid'"),
        ("name: x\nclock: real\nsteps:\n  - advance: 1s\n", "s.yaml:4:5: 'advance' needs 'clock: manual' (this scenario runs on real time)"),
        ("name: x\nfiles: {a.png: {like: x.png, size: -1KB}}\nsteps: []\n",
         "s.yaml:2:36: 'size' must be a size such as 11MB or 500KB (at most 16MB)"),
        ("name: x\ninclude: [missing.yaml]\nsteps: []\n",
         "s.yaml:2:10: cannot read included file 'missing.yaml' (looked at /missing.yaml)"),
    ])
    func deviceSenderAndSettingErrors(_ text: String, _ message: String) {
        #expect(parseError(text, file: "/s.yaml").map { $0.replacingOccurrences(of: "/s.yaml", with: "s.yaml") } == message)
    }
}
