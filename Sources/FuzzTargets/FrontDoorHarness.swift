import APNsProtocol
import EmulatorControl
import FrontDoors
import VirtualDevices

/// The front doors' readers of outside bytes, the first byte picking one: Google's token endpoint (a form), the
/// FCM v1 and legacy translators and OneSignal's (a JSON body), a registration token, the provider-shape check.
final class FrontDoorHarness: Sendable {
    private let projects: FCMProjects
    private static let instance = OnFirstUse<FrontDoorHarness>()

    static func shared(_ certificates: String) -> FrontDoorHarness {
        instance.get { FrontDoorHarness(certificates) }
    }

    private init(_ certificates: String) {
        projects = FCMProjects((try? FCMSampleProject.load(from: certificates).get()).map { [$0] } ?? [])
    }

    func run(_ input: UnsafeRawBufferPointer) {
        guard let selector = input.first else { return }
        let rest = Array(input.dropFirst())
        switch selector % 6 {
        case 0:
            _ = projects.exchangeForFuzzing(form: rest)
        case 1, 2, 3:
            guard case .success(let document) = JSONDocument.parse(rest, budget: 1 << 24) else { return }
            let body = document.value
            let token = FCMRegistrationToken(projectNumber: FCMSampleProject.projectNumber, bundleId: "com.example.app",
                                             sandbox: false, apnsToken: String(repeating: "ab", count: 32))
            if selector % 6 == 1, let message = body["message"] {
                _ = try? FCMv1Translator.translate(message, projectNumber: token.projectNumber, messageId: "0:1%a", nowSeconds: 0)
            } else if selector % 6 == 2 {
                _ = try? FCMLegacyTranslator.translate(body, target: token.text, projectNumber: token.projectNumber, messageId: "0:1%a",
                                                       nowSeconds: 0)
            } else if let plan = try? OneSignalTranslator.plan(body, notificationId: "n", nowSeconds: 0) {
                let subscription = OneSignalSubscription(id: "s", appId: "a", apnsToken: token.apnsToken, environment: "production",
                                                         externalId: nil, badgeCount: Int64.max - 1)
                let apps = OneSignalApps([])
                _ = apps.nextBadge("Increase", Int64.max - 1, of: "s")
                _ = OneSignalTranslator.push(plan, to: subscription, bundleId: "com.example.app") { type, count in
                    apps.nextBadge(type, count, of: "s")
                }
            }
        case 4:
            _ = FCMRegistrationToken(text: String(decoding: rest, as: UTF8.self))
        default:
            _ = ProviderShape.hints(inPayload: rest)
        }
    }
}
