import Testing

@testable import VirtualDevices

@Suite("ForwardedArguments")
struct ForwardedArgumentsTests {
    @Test func changedArgumentsReplaceOrNullTheOSOnes() throws {
        var args = ForwardedArguments()
        #expect(args.apply(to: .didRegister(token: "ab")) == .success(.didRegister(token: "ab")), "no change: as the OS gave it")
        args.deviceToken = .some([0x0A, 0xFF])
        #expect(args.apply(to: .didRegister(token: "ab")) == .success(.didRegister(token: "0aff")))
        args.deviceToken = .some(nil)
        #expect(args.apply(to: .didRegister(token: "ab")) == .failure(.init(parameter: "deviceToken")))
        var response = ForwardedArguments()
        response.actionIdentifier = .some("")
        let n = ApnsNotification.empty
        #expect(response.apply(to: .didReceive(n, actionIdentifier: "X", userText: nil, launchedApp: true))
                == .success(.didReceive(n, actionIdentifier: "", userText: nil, launchedApp: true)))
        response.notificationIsNull = true
        #expect(response.apply(to: .willPresent(n)) == .failure(.init(parameter: "notification")))
    }
}
