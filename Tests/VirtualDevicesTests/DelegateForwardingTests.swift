import Testing

@testable import VirtualDevices

@Suite("DelegateAttachment and forwarding table")
struct DelegateForwardingTests {
    /// Whether the table lets `callback` through (no reason to stop it).
    static func reaches(_ callback: OSCallback, configuration: DelegateConfiguration,
                        attachment: DelegateAttachment.State) -> Bool {
        DelegateForwarding.whyNot(callback, configuration: configuration, attachment: attachment) == nil
    }

    static let remote = ApnsNotification(identifier: "r", content: PushContent(payload: Array(#"{"aps":{"alert":"x"}}"#.utf8)),
                                         platform: .iOS, level: .active, source: .delegate)
    static var local: ApnsNotification {
        var n = remote
        n.isRemote = false
        return n
    }

    @Test func thirdPartyReplacesTheDelegateAtTheFirstPromptOnly() {
        var a = DelegateAttachment()
        a.permissionPromptShown(replacement: .replaces)
        #expect(a.state == .replacedByThirdParty)
        a.reattach()
        a.permissionPromptShown(replacement: .replaces)
        #expect(a.state == .attached, "only the first prompt swaps the delegate")
    }

    @Test func reattachingPackageKeepsTheDelegate() {
        var a = DelegateAttachment()
        a.permissionPromptShown(replacement: .replacesThenReattached)
        #expect(a.state == .attached)
    }

    @Test func correctDelegateForwardsRemoteButNotLocalNotifications() {
        let c = DelegateConfiguration()
        #expect(Self.reaches(.willPresent(Self.remote), configuration: c, attachment: .attached))
        #expect(!Self.reaches(.willPresent(Self.local), configuration: c, attachment: .attached))
        let sloppy = DelegateConfiguration(forwarding: .includingLocal)
        #expect(Self.reaches(.willPresent(Self.local), configuration: sloppy, attachment: .attached))
    }

    @Test func nonForwardingDelegatePassesNothing() {
        let c = DelegateConfiguration(forwarding: .none)
        #expect(!Self.reaches(.didRegister(token: "ab"), configuration: c, attachment: .attached))
        #expect(!Self.reaches(.willPresent(Self.remote), configuration: c, attachment: .attached))
    }

    @Test func replacedDelegateStillForwardsRegistrationButNotNotifications() {
        let c = DelegateConfiguration()
        #expect(Self.reaches(.didRegister(token: "ab"), configuration: c, attachment: .replacedByThirdParty))
        #expect(!Self.reaches(
            .didReceive(Self.remote, actionIdentifier: "a", userText: nil, launchedApp: false),
            configuration: c, attachment: .replacedByThirdParty))
    }

    @Test func lateDelegateMissesOnlyTheLaunchResponse() {
        let c = DelegateConfiguration(setLate: true)
        #expect(!Self.reaches(.didReceive(Self.remote, actionIdentifier: "a", userText: nil, launchedApp: true),
                                            configuration: c, attachment: .attached))
        #expect(Self.reaches(.didReceive(Self.remote, actionIdentifier: "a", userText: nil, launchedApp: false),
                                           configuration: c, attachment: .attached))
    }
}
