import APNsEmulator
import VirtualDevices
import APNsProtocol
import EmulatorControl
import Foundation
import H2Transport
import OpenSSLSupport

/// The front doors' control endpoints: FCM projects, registration tokens for APNs tokens, and the message log.
package final class FrontDoorsControlAPI: EmulatorExtension {
    package let frontDoors: FrontDoors
    private let host: String
    private let port: Int

    init(frontDoors: FrontDoors, host: String, port: Int) {
        self.frontDoors = frontDoors
        self.host = host
        self.port = port
    }

    enum Operation: String, CaseIterable {
        case listFrontDoorMessages, listFCMProjects, putFCMProject, createFCMRegistrationToken
        case listOneSignalApps, putOneSignalApp, listOneSignalSubscriptions, createOneSignalSubscription
        case sendFCMv1, sendFCMLegacy, sendOneSignal
    }

    package var routes: [(method: String, pattern: String, operation: String)] {
        [
            ("GET", "/_emulator/front-doors/messages", Operation.listFrontDoorMessages.rawValue),
            ("GET", "/_emulator/fcm/projects", Operation.listFCMProjects.rawValue),
            ("PUT", "/_emulator/fcm/projects/{projectId}", Operation.putFCMProject.rawValue),
            ("POST", "/_emulator/fcm/registration-tokens", Operation.createFCMRegistrationToken.rawValue),
            ("GET", "/_emulator/onesignal/apps", Operation.listOneSignalApps.rawValue),
            ("PUT", "/_emulator/onesignal/apps/{appId}", Operation.putOneSignalApp.rawValue),
            ("GET", "/_emulator/onesignal/subscriptions", Operation.listOneSignalSubscriptions.rawValue),
            ("POST", "/_emulator/onesignal/subscriptions", Operation.createOneSignalSubscription.rawValue),
            ("POST", "/_emulator/front-doors/fcm/v1/{projectId}", Operation.sendFCMv1.rawValue),
            ("POST", "/_emulator/front-doors/fcm/legacy/{projectId}", Operation.sendFCMLegacy.rawValue),
            ("POST", "/_emulator/front-doors/onesignal", Operation.sendOneSignal.rawValue),
        ]
    }

    package var operationsWithQuery: Set<String> { [] }

    package func perform(_ operation: String, _ request: ControlRequest) throws -> HTTP1Response {
        switch Operation(rawValue: operation) {
        case .listFrontDoorMessages:
            try request.expectEmptyBody()
            return try ControlAPIResponse.json("messages", frontDoors.log.all)
        case .listFCMProjects:
            try request.expectEmptyBody()
            return try ControlAPIResponse.json("projects", frontDoors.fcm.projects.all.map(ProjectView.init))
        case .putFCMProject:
            let project = try Self.readProject(id: request.parameter("projectId"), try request.body())
            frontDoors.fcm.projects.put(project)
            return try ControlAPIResponse.json(ProjectView(project))
        case .createFCMRegistrationToken:
            let body = try request.body()
            let projectId = body.string("projectId") ?? FCMSampleProject.projectIdDefault
            let bundleId = body.string("bundleId", required: true) ?? ""
            let apnsToken = body.string("apnsToken", required: true) ?? ""
            let environment = body.string("environment") ?? "production"
            try body.finish()
            guard let project = frontDoors.fcm.projects.project(projectId) else {
                throw ControlAPIError.notFound("no FCM project \(projectId)")
            }
            guard environment == "production" || environment == "sandbox" else {
                throw ControlAPIError.invalidField("environment", message: "environment must be production or sandbox")
            }
            try Self.checkAPNsToken(apnsToken)
            guard !bundleId.isEmpty, bundleId.utf8.count <= 255 else {
                throw ControlAPIError.invalidField("bundleId", message: "bundleId must be 1 to 255 bytes")
            }
            let token = FCMRegistrationToken(projectNumber: project.projectNumber, bundleId: bundleId,
                                             sandbox: environment == "sandbox", apnsToken: apnsToken)
            return try ControlAPIResponse.json(["token": token.text], status: 201)
        case .listOneSignalApps:
            try request.expectEmptyBody()
            return try ControlAPIResponse.json("apps", frontDoors.oneSignal.apps.allApps.map(AppView.init))
        case .putOneSignalApp:
            let body = try request.body()
            let key = body.string("restApiKey", required: true) ?? ""
            let bundleId = body.string("bundleId", required: true) ?? ""
            let apns = body.object("apns", required: true)
            let keyId = apns?.string("keyId", required: true) ?? ""
            let teamId = apns?.string("teamId", required: true) ?? ""
            let pem = apns?.string("privateKey", required: true) ?? ""
            try body.finish()
            guard !key.isEmpty else { throw ControlAPIError.invalidField("restApiKey", message: "restApiKey must not be empty") }
            let apnsKey: PrivateKey
            do { apnsKey = try PrivateKey(pem: pem) } catch {
                throw ControlAPIError.invalidField("apns.privateKey", message: "apns.privateKey is not a PEM private key (.p8): \(error)")
            }
            let app = OneSignalApp(appId: request.parameter("appId"), restApiKey: key, bundleId: bundleId, apnsKeyId: keyId,
                                   apnsTeamId: teamId, apnsKey: apnsKey)
            frontDoors.oneSignal.apps.put(app)
            return try ControlAPIResponse.json(AppView(app))
        case .listOneSignalSubscriptions:
            try request.expectEmptyBody()
            return try ControlAPIResponse.json("subscriptions", frontDoors.oneSignal.apps.all())
        case .createOneSignalSubscription:
            let body = try request.body()
            let appId = body.string("appId") ?? OneSignalSampleApp.appId
            let apnsToken = body.string("apnsToken", required: true) ?? ""
            let environment = body.string("environment") ?? "production"
            let externalId = body.string("externalId")
            try body.finish()
            guard frontDoors.oneSignal.apps.app(appId) != nil else { throw ControlAPIError.notFound("no OneSignal app \(appId)") }
            try Self.checkAPNsToken(apnsToken)
            guard environment == "production" || environment == "sandbox" else {
                throw ControlAPIError.invalidField("environment", message: "environment must be production or sandbox")
            }
            guard let sub = frontDoors.oneSignal.apps.subscribe(appId: appId, apnsToken: apnsToken, sandbox: environment == "sandbox",
                                                                externalId: externalId)
            else { throw ControlAPIError.conflict("\(OneSignalApps.maxSubscriptions) subscriptions are registered; reset to add more") }
            return try ControlAPIResponse.json(sub, status: 201)
        case .sendFCMv1, .sendFCMLegacy, .sendOneSignal:
            return try relay(Operation(rawValue: operation)!, request)
        case nil:
            throw ControlAPIError.notFound(operation)
        }
    }

    /// `{"projectNumber", "serviceAccount": {"client_email", "private_key" | "public_key"}, "serverKey"?,
    /// "apns": {"keyId", "teamId", "privateKey"}}`: the service-account JSON's own field names, as downloaded.
    static func readProject(id: String, _ body: JSONBodyReader) throws -> FCMProject {
        let number = body.int64("projectNumber", required: true) ?? 0
        let account = body.object("serviceAccount", required: true)
        let email = account?.string("client_email", required: true) ?? ""
        let privatePEM = account?.string("private_key")
        let publicPEM = account?.string("public_key")
        // The rest of a downloaded service-account JSON is accepted and not needed.
        for name in ["project_id", "type", "private_key_id", "client_id", "auth_uri", "token_uri", "auth_provider_x509_cert_url",
                     "client_x509_cert_url", "universe_domain"] { _ = account?.string(name) }
        let serverKey = body.string("serverKey")
        let apns = body.object("apns", required: true)
        let keyId = apns?.string("keyId", required: true) ?? ""
        let teamId = apns?.string("teamId", required: true) ?? ""
        let apnsPEM = apns?.string("privateKey", required: true) ?? ""
        try body.finish()
        guard number > 0 else { throw ControlAPIError.invalidField("projectNumber", message: "projectNumber must be a positive number") }
        let key: PublicKey
        do {
            if let privatePEM { key = try PrivateKey(pem: privatePEM).publicKey } else if let publicPEM { key = try PublicKey(pem: publicPEM) } else {
                throw ControlAPIError.invalidField("serviceAccount", message: "serviceAccount needs private_key or public_key (PEM)")
            }
        } catch let error as ControlAPIError {
            throw error
        } catch {
            throw ControlAPIError.invalidField("serviceAccount", message: "the service account's key is not a PEM key: \(error)")
        }
        guard key.isRSA else { throw ControlAPIError.invalidField("serviceAccount", message: "a service account's key is RSA") }
        let apnsKey: PrivateKey
        do { apnsKey = try PrivateKey(pem: apnsPEM) } catch {
            throw ControlAPIError.invalidField("apns.privateKey", message: "apns.privateKey is not a PEM private key (.p8): \(error)")
        }
        return FCMProject(projectId: id, projectNumber: UInt64(number), serviceAccounts: [email: key], serverKey: serverKey,
                          apnsKeyId: keyId, apnsTeamId: teamId, apnsKey: apnsKey)
    }

    /// A provider request made on the sender's behalf, with the sample credentials of its project or app (the
    /// scenario runner's `fcm`, `fcm-legacy` and `onesignal` steps): answered exactly as the front door answers it.
    private func relay(_ operation: Operation, _ request: ControlRequest) throws -> HTTP1Response {
        let document: JSONDocument
        switch JSONDocument.parse(request.http.body) {
        case .success(let d) where d.value.kind == .object: document = d
        case .success: throw ControlAPIError.invalidField("body", message: "the body must be the provider's JSON object")
        case .failure(let e): throw ControlAPIError.malformedJSON("request body is not valid JSON: \(e)")
        }
        let now = frontDoors.fcm.clock.now() / 1000
        var body = document.value.foundation as? [String: Any] ?? [:]
        let path: String
        let authorization: String
        switch operation {
        case .sendFCMv1, .sendFCMLegacy:
            let id = request.parameter("projectId")
            guard let project = frontDoors.fcm.projects.project(id) else { throw ControlAPIError.notFound("no FCM project \(id)") }
            if operation == .sendFCMv1 {
                guard let account = project.serviceAccounts.keys.sorted().first else {
                    throw ControlAPIError.conflict("project \(id) has no service account")
                }
                path = "/v1/projects/\(id)/messages:send"
                authorization = "Bearer " + frontDoors.fcm.projects.grant(account: account, nowSeconds: now)
            } else {
                guard let key = project.serverKey else { throw ControlAPIError.conflict("project \(id) has no legacy server key") }
                path = "/fcm/send"
                authorization = "key=" + key
            }
        default:
            if body["app_id"] == nil { body["app_id"] = OneSignalSampleApp.appId }
            let appId = body["app_id"] as? String ?? ""
            guard let app = frontDoors.oneSignal.apps.app(appId) else { throw ControlAPIError.notFound("no OneSignal app \(appId)") }
            path = "/notifications"
            authorization = "Key " + app.restApiKey
        }
        return frontDoors.router.handle(HTTP1Request(
            method: "POST", path: path, headers: [H2Header("authorization", authorization), H2Header("content-type", "application/json")],
            body: JSONText.bytes(body)))
    }

    static func checkAPNsToken(_ token: String) throws(ControlAPIError) {
        guard token.utf8.count.isMultiple(of: 2), (16...200).contains(token.utf8.count),
              token.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) })
        else { throw ControlAPIError.invalidField("apnsToken", message: "apnsToken must be an APNs device token in hex") }
    }

    struct AppView: Encodable {
        var appId: String
        var bundleId: String
        var apnsKeyId: String
        var apnsTeamId: String

        init(_ a: OneSignalApp) {
            appId = a.appId
            bundleId = a.bundleId
            apnsKeyId = a.apnsKeyId
            apnsTeamId = a.apnsTeamId
        }
    }

    struct ProjectView: Encodable {
        var projectId: String
        var projectNumber: String
        var serviceAccounts: [String]
        var legacyServerKey: Bool
        var apnsKeyId: String
        var apnsTeamId: String

        init(_ p: FCMProject) {
            projectId = p.projectId
            projectNumber = String(p.projectNumber)
            serviceAccounts = p.serviceAccounts.keys.sorted()
            legacyServerKey = p.serverKey != nil
            apnsKeyId = p.apnsKeyId
            apnsTeamId = p.apnsTeamId
        }
    }

    // MARK: EmulatorExtension

    package func pushAccepted(_ push: AcceptedPush, now: Millis, readAt: UInt64) {}
    /// The front doors send pushes; they do not watch them.
    package var observesPushes: Bool { false }
    package func clockAdvanced(to now: Millis) {}
    package func reset() {
        frontDoors.log.reset()
        frontDoors.fcm.projects.reset()
        frontDoors.oneSignal.apps.reset()
    }
    package func shutdown() { frontDoors.shutdown() }

    package func started(at endpoints: EmulatorEndpoints) throws -> EmulatorEndpoints {
        let address: SocketAddress
        do {
            address = try frontDoors.start(host: host, port: port, apns: endpoints)
        } catch let error as IOError where error.errno == EADDRINUSE {
            throw EmulatorError.portInUse(listener: "front-door", host: host, port: port, flag: "--front-door-port")
        }
        var endpoints = endpoints
        endpoints.frontDoors = "https://\(Emulator.displayHost(host)):\(address.port)"
        return endpoints
    }

    /// What the FCM operations pass on when the front door refuses a message.
    static let fcmErrors = "FCM's refusal, with its status and its own body (v1: `{\"error\": {\"code\", \"message\", \"status\", \"details\"}}`)."

    package var document: ControlAPIDocument.Fragment {
        typealias Op = ControlAPIDocument.Operation
        typealias Doc = ControlAPIDocument
        return ControlAPIDocument.Fragment(
            tags: [["name": "front-doors", "description": "FCM's and OneSignal's APIs as a sender reaches them, relayed to this emulator's APNs."]],
            operations: [
                Op(id: Operation.listFrontDoorMessages.rawValue, method: "GET", path: "/_emulator/front-doors/messages",
                   tag: "front-doors", summary: "Messages the front doors received",
                   description: "The last 1,000, oldest first: the APNs request made of each (or why none was), APNs' answer,"
                    + " and notes on fields the provider ignored or would not map as the sender may expect.",
                   success: (200, "`{\"messages\": [...]}`.", "FrontDoorMessageList")),
                Op(id: Operation.listFCMProjects.rawValue, method: "GET", path: "/_emulator/fcm/projects", tag: "front-doors",
                   summary: "FCM projects", success: (200, "`{\"projects\": [...]}`.", "FCMProjectList")),
                Op(id: Operation.putFCMProject.rawValue, method: "PUT", path: "/_emulator/fcm/projects/{projectId}",
                   tag: "front-doors", summary: "Add or replace an FCM project",
                   description: "Its service account (the downloaded JSON's fields; the key signs OAuth assertions), its legacy"
                    + " server key, and the APNs auth key uploaded to it (FCM signs its APNs requests with it; the key must be"
                    + " registered with the emulator for APNs to accept them).",
                   body: ("FCMProjectRequest", true), success: (200, "The project.", "FCMProject")),
                Op(id: Operation.createFCMRegistrationToken.rawValue, method: "POST", path: "/_emulator/fcm/registration-tokens",
                   tag: "front-doors", summary: "The FCM registration token of an APNs token",
                   description: "What the Firebase Messaging SDK of the app gets for this APNs token.",
                   body: ("FCMRegistrationTokenRequest", true), success: (201, "`{\"token\"}`.", "FCMRegistrationToken"),
                   errors: [404: "No such project."]),
                Op(id: Operation.sendFCMv1.rawValue, method: "POST", path: "/_emulator/front-doors/fcm/v1/{projectId}",
                   tag: "front-doors", summary: "Send an FCM v1 request as the project's service account",
                   description: "The body is the v1 send body (`{\"message\": …}`); it goes to the front door with an access token"
                    + " of the project's service account, and the answer is the front door's (what a scenario's `fcm` step sends).",
                   body: ("FrontDoorBody", true), success: (200, "FCM's answer (`{\"name\"}`).", nil),
                   errors: [404: "No such project.", 409: "The project has no service account."],
                   passesThrough: Self.fcmErrors),
                Op(id: Operation.sendFCMLegacy.rawValue, method: "POST", path: "/_emulator/front-doors/fcm/legacy/{projectId}",
                   tag: "front-doors", summary: "Send an FCM legacy request with the project's server key",
                   body: ("FrontDoorBody", true), success: (200, "The legacy API's answer (`results`).", nil),
                   errors: [404: "No such project.", 409: "The project has no legacy server key."],
                   passesThrough: Self.fcmErrors),
                Op(id: Operation.sendOneSignal.rawValue, method: "POST", path: "/_emulator/front-doors/onesignal",
                   tag: "front-doors", summary: "Create a OneSignal notification with the app's REST API key",
                   description: "`app_id` defaults to the sample app.",
                   body: ("FrontDoorBody", true), success: (200, "OneSignal's answer (`{\"id\", \"errors\"?}`).", nil),
                   errors: [404: "No such OneSignal app."],
                   passesThrough: "OneSignal's refusal, with its status and its own body (`{\"errors\": [...]}`)."),
                Op(id: Operation.listOneSignalApps.rawValue, method: "GET", path: "/_emulator/onesignal/apps", tag: "front-doors",
                   summary: "OneSignal apps", success: (200, "`{\"apps\": [...]}`.", "OneSignalAppList")),
                Op(id: Operation.putOneSignalApp.rawValue, method: "PUT", path: "/_emulator/onesignal/apps/{appId}", tag: "front-doors",
                   summary: "Add or replace a OneSignal app",
                   description: "Its REST API key, the iOS app's bundle id and the APNs auth key uploaded to it (registered with the"
                    + " emulator, for APNs to accept what OneSignal sends).",
                   body: ("OneSignalAppRequest", true), success: (200, "The app.", "OneSignalApp")),
                Op(id: Operation.listOneSignalSubscriptions.rawValue, method: "GET", path: "/_emulator/onesignal/subscriptions",
                   tag: "front-doors", summary: "OneSignal push subscriptions",
                   success: (200, "`{\"subscriptions\": [...]}` in registration order.", "OneSignalSubscriptionList")),
                Op(id: Operation.createOneSignalSubscription.rawValue, method: "POST", path: "/_emulator/onesignal/subscriptions",
                   tag: "front-doors", summary: "Register a push subscription",
                   description: "What the OneSignal SDK of an app registers for its APNs token; `externalId` is the user it logged"
                    + " in as (targeted by include_aliases.external_id and include_external_user_ids). Its badge count starts at 0.",
                   body: ("OneSignalSubscriptionRequest", true), success: (201, "The subscription.", "OneSignalSubscription"),
                   errors: [404: "No such app.", 409: "The subscription table is full."]),
            ],
            schemas: [
                "FrontDoorMessageList": Doc.object("Front-door messages.", [("messages", Doc.array(Doc.ref("FrontDoorMessage"), "Oldest first."))]),
                "FrontDoorMessage": Doc.object("One message.", [
                    ("id", Doc.string("The provider's message id (FCM: also `gcm.message_id`).")),
                    ("receivedAt", Doc.integer("Milliseconds since 1970, emulator clock.")),
                    ("api", Doc.string("fcm-v1, fcm-legacy or onesignal.")), ("project", Doc.string("FCM project id, or OneSignal app id.")),
                    ("target", Doc.string("Who it was for: the FCM registration token, or the OneSignal subscription (or the targets asked for).")),
                    ("apns", Doc.object("The APNs request made of it.", [
                        ("token", Doc.string("APNs device token.")), ("environment", Doc.string("production or sandbox.")),
                        ("headers", ["type": "object", "additionalProperties": ["type": "string"]] as Doc.JSON),
                        ("payload", Doc.string("The JSON payload.")),
                    ])),
                    ("apnsStatus", Doc.integer("APNs' status.")), ("apnsReason", Doc.string("APNs' reason.")),
                    ("apnsId", Doc.string("APNs' apns-id.")), ("status", Doc.integer("The front door's status.")),
                    ("error", Doc.string("The provider's error, with its code.")),
                    ("notes", Doc.array(Doc.string("A note."), "What was ignored or not mapped.")),
                ]),
                "FCMProjectList": Doc.object("Projects.", [("projects", Doc.array(Doc.ref("FCMProject"), "By id."))]),
                "FCMProject": Doc.object("A project.", [
                    ("projectId", Doc.string("Id.")), ("projectNumber", Doc.string("Sender id.")),
                    ("serviceAccounts", Doc.array(Doc.string("client_email"), "Accounts that may send.")),
                    ("legacyServerKey", Doc.boolean("Whether the legacy API has a server key.")),
                    ("apnsKeyId", Doc.string("The APNs key FCM signs with.")), ("apnsTeamId", Doc.string("Its team.")),
                ]),
                "FCMProjectRequest": Doc.object("A project.", [
                    ("projectNumber", Doc.integer("Sender id.")),
                    ("serviceAccount", Doc.object("The service-account JSON (client_email, private_key or public_key).", [
                        ("client_email", Doc.string("Account.")), ("private_key", Doc.string("RSA PEM.")),
                        ("public_key", Doc.string("RSA public PEM.")),
                    ], required: ["client_email"])),
                    ("serverKey", Doc.string("Legacy API server key.")),
                    ("apns", Doc.object("The APNs auth key.", [
                        ("keyId", Doc.string("Key id.")), ("teamId", Doc.string("Team id.")), ("privateKey", Doc.string(".p8 PEM.")),
                    ], required: ["keyId", "teamId", "privateKey"])),
                ], required: ["projectNumber", "serviceAccount", "apns"]),
                "FCMRegistrationTokenRequest": Doc.object("An app's APNs registration.", [
                    ("projectId", Doc.string("Project (default: the sample project).")), ("bundleId", Doc.string("The app.")),
                    ("apnsToken", Doc.string("Its APNs token, hex.")), ("environment", Doc.string("production (default) or sandbox.")),
                ], required: ["bundleId", "apnsToken"]),
                "FCMRegistrationToken": Doc.object("A registration token.", [("token", Doc.string("FCM registration token."))]),
                "FrontDoorBody": ["type": "object", "description": "The provider's own request body, as a sender would send it."]
                    as Doc.JSON,
                "OneSignalAppList": Doc.object("Apps.", [("apps", Doc.array(Doc.ref("OneSignalApp"), "By id."))]),
                "OneSignalApp": Doc.object("A OneSignal app.", [
                    ("appId", Doc.string("App id.")), ("bundleId", Doc.string("The iOS app.")),
                    ("apnsKeyId", Doc.string("The APNs key OneSignal signs with.")), ("apnsTeamId", Doc.string("Its team.")),
                ]),
                "OneSignalAppRequest": Doc.object("A OneSignal app.", [
                    ("restApiKey", Doc.string("The REST API key senders authorise with.")), ("bundleId", Doc.string("The iOS app.")),
                    ("apns", Doc.object("The APNs auth key.", [
                        ("keyId", Doc.string("Key id.")), ("teamId", Doc.string("Team id.")), ("privateKey", Doc.string(".p8 PEM.")),
                    ], required: ["keyId", "teamId", "privateKey"])),
                ], required: ["restApiKey", "bundleId", "apns"]),
                "OneSignalSubscriptionList": Doc.object("Subscriptions.", [
                    ("subscriptions", Doc.array(Doc.ref("OneSignalSubscription"), "In registration order.")),
                ]),
                "OneSignalSubscription": Doc.object("A push subscription.", [
                    ("id", Doc.string("Subscription (player) id.")), ("appId", Doc.string("App.")),
                    ("apnsToken", Doc.string("APNs token.")), ("environment", Doc.string("production or sandbox.")),
                    ("externalId", Doc.string("The user it is logged in as.")),
                    ("badgeCount", Doc.integer("The badge count OneSignal keeps (ios_badgeType Increase adds to it).")),
                ]),
                "OneSignalSubscriptionRequest": Doc.object("A subscription.", [
                    ("appId", Doc.string("App (default: the sample app).")), ("apnsToken", Doc.string("APNs token, hex.")),
                    ("environment", Doc.string("production (default) or sandbox.")), ("externalId", Doc.string("External user id.")),
                ], required: ["apnsToken"]),
            ])
    }
}
