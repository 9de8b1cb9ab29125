import APNsProtocol
import H2Transport
import Testing

@Suite struct APNsReasonTests {
    /// Apple's table, transcribed independently of the enum.
    static let appleTable: [Int: [String]] = [
        400: ["BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
              "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
              "MissingTopic", "PayloadEmpty", "TopicDisallowed", "FeatureNotEnabled", "MissingChannelId", "BadChannelId",
              "ChannelNotRegistered", "BadRequestParams", "BadRequestPayload", "MissingPushType",
              "CannotCreateChannelConfig"],
        403: ["BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden", "InvalidProviderToken",
              "MissingProviderToken", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "TopicMismatch"],
        404: ["BadPath"],
        405: ["MethodNotAllowed"],
        410: ["ExpiredToken", "Unregistered"],
        413: ["PayloadTooLarge"],
        429: ["TooManyProviderTokenUpdates", "TooManyRequests"],
        500: ["InternalServerError"],
        503: ["ServiceUnavailable", "Shutdown"],
    ]

    @Test func everyReasonHasApplesStatusAndWireString() {
        var seen: Set<String> = []
        for (status, reasons) in Self.appleTable {
            for text in reasons {
                let reason = APNsReason(rawValue: text)
                #expect(reason != nil, "missing reason \(text)")
                #expect(reason?.status == status, "\(text) should be \(status)")
                seen.insert(text)
            }
        }
        #expect(Set(APNsReason.allCases.map(\.rawValue)) == seen)
    }

    @Test func caseNamesAreTheLowerCamelWireStrings() {
        for reason in APNsReason.allCases {
            let name = String(describing: reason)
            #expect(name.prefix(1).lowercased() + name.dropFirst() == name)
            #expect(name.lowercased() == reason.rawValue.lowercased())
        }
    }

    @Test func onlyGoneReasonsCarryATimestamp() {
        #expect(APNsReason.allCases.filter(\.carriesTimestamp) == [.expiredToken, .unregistered])
    }

    @Test func undocumentedSpellingIsASwitch() {
        var policy = ValidationPolicy()
        #expect(policy.wireString(for: .badEnvironmentKeyIdInToken) == "BadEnvironmentKeyIdInToken")
        policy.useUndocumentedBadEnvironmentKeySpelling = true
        #expect(policy.wireString(for: .badEnvironmentKeyIdInToken) == "BadEnvironmentKeyInToken")
        #expect(policy.wireString(for: .badTopic) == "BadTopic")
    }

    @Test func generatedApnsIdsAreLowercaseVersion4UUIDs() {
        var rng = APNsIDGenerator()
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = rng.generate()
            #expect(APNsID.isCanonical(id.utf8) && id == id.lowercased())
            let bytes = Array(id.utf8)
            #expect(bytes[14] == UInt8(ascii: "4"))
            #expect([UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a"), UInt8(ascii: "b")].contains(bytes[19]))
            seen.insert(id)
        }
        #expect(seen.count == 1000)
        #expect(Set(APNsID.generate().utf8).isSubset(of: Set("0123456789abcdef-".utf8)))
    }

    @Test func rejectionBodyIsApplesJSON() {
        let policy = ValidationPolicy()
        #expect(APNsAnswer.body(.badDeviceToken, timestamp: nil, policy: policy) == #"{"reason":"BadDeviceToken"}"#)
        #expect(APNsAnswer.body(.unregistered, timestamp: 1_700_000_000_123, policy: policy)
                == #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        let answer = APNsAnswer.rejection(.badPriority, timestamp: nil, id: "A-B", policy: policy)
        #expect(answer.status == 400)
        #expect(answer["apns-id"] == "A-B")
        #expect(answer["content-type"] == "application/json")
        #expect(answer.body == Array(#"{"reason":"BadPriority"}"#.utf8))
        let broadcast = APNsAnswer.rejection(.badPriority, timestamp: nil, id: "R", idHeader: .requestId, policy: policy)
        #expect(broadcast["apns-request-id"] == "R" && broadcast["apns-id"] == nil)
    }
}
