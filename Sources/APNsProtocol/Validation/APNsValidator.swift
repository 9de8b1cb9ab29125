import Foundation
import WireBytes

/// The provider API's rules as one ordered, pure pipeline: a request in, an accepted push or the first
/// rejection out.
///
/// ### Order
/// 1. `:method` is POST — else 405 MethodNotAllowed.
/// 2. `:path` is `/3/device/<token>` — else 404 BadPath; no token: 400 MissingDeviceToken.
/// 3. No regular header is repeated — else 400 DuplicateHeaders.
/// 4. Header values: apns-id (BadMessageId), apns-push-type (InvalidPushType), apns-priority (BadPriority),
///    apns-expiration (BadExpirationDate), apns-collapse-id (BadCollapseId).
/// 5. The device token is well-formed hex — else 400 BadDeviceToken.
/// 6. Authentication: the client certificate (BadCertificate, BadCertificateEnvironment), or the provider
///    token (MissingProviderToken, InvalidProviderToken, ExpiredProviderToken, BadEnvironmentKeyIdInToken,
///    then the per-connection rules: InvalidProviderToken for another team, UnrelatedKeyIdInToken,
///    TooManyProviderTokenUpdates).
/// 7. Topic: present when required (MissingTopic), carrying the push type's suffix (BadTopic), allowed
///    for the certificate (TopicDisallowed) or the topic key (policy), not another team's declared app
///    (policy, TopicDisallowed), push type allowed for certificates.
/// 8. Payload: not empty (PayloadEmpty), within the push type's limit (413 PayloadTooLarge), a JSON object
///    (policy: PayloadEmpty), background pushes at priority 5 (policy: BadPriority).
/// 9. The device token is known in this environment (BadDeviceToken), belongs to the topic's app
///    (DeviceTokenNotForTopic), is still registered (410 Unregistered / ExpiredToken with timestamp).
///
/// Apple does not document its own order; this one reports the most fundamental fault first, as Pushy's
/// validating handler does. Rate limits and injected faults are applied by the emulator around it.
public struct APNsValidator: Sendable {
    public init() {}

    public func validate<Request: RequestMessage>(_ request: Request, context: ValidationContext,
                                                  state: inout ConnectionAuthState) -> Result<AcceptedPush, Rejection> {
        var context = context
        return validate(request, inPlace: &context, state: &state)
    }

    /// The same, reading a context the caller keeps (a connection keeps one and sets its clock and environment
    /// per request). The context is only read.
    @inlinable
    public func validate<Request: RequestMessage>(_ request: Request, inPlace context: inout ValidationContext,
                                                  state: inout ConnectionAuthState) -> Result<AcceptedPush, Rejection> {
        validate(headers: request.headers, body: request.body, bodyLength: request.bodyLength,
                 bodyExceededLimit: request.bodyExceededLimit, inPlace: &context, state: &state)
    }

    /// The pipeline itself, over the request's parts (concrete, so the header list's accessors inline).
    @usableFromInline
    func validate(headers: borrowing HeaderFields, body: borrowing [UInt8], bodyLength: Int, bodyExceededLimit: Bool,
                  inPlace context: inout ValidationContext,
                  state: inout ConnectionAuthState) -> Result<AcceptedPush, Rejection> {
        var summary = RequestSummary()

        // The pseudo-headers' places were noted as the list was filled (HTTP/2 allows each once). The other
        // fields we need are picked out in one pass, by name length first, noting repeats (names are compared
        // pairwise only when the list says a repeat is possible).
        let methodIndex = headers.methodIndex, pathIndex = headers.pathIndex
        var idIndex: Int?, typeIndex: Int?, priorityIndex: Int?
        var expirationIndex: Int?, collapseIndex: Int?, topicIndex: Int?, authIndex: Int?
        var duplicate = false
        for i in 0..<headers.count {
            if headers.isPseudo(at: i) { continue }
            if !duplicate && headers.mayRepeatRegularName {
                var j = 0
                while j < i {
                    if headers.namesEqual(i, j) {
                        duplicate = true
                        break
                    }
                    j += 1
                }
            }
            switch headers.nameLength(at: i) {
            case 7: if headers.nameEquals(at: i, "apns-id") { idIndex = idIndex ?? i }
            case 10: if headers.nameEquals(at: i, "apns-topic") { topicIndex = topicIndex ?? i }
            case 13:
                if headers.nameEquals(at: i, "authorization") { authIndex = authIndex ?? i }
                else if headers.nameEquals(at: i, "apns-priority") { priorityIndex = priorityIndex ?? i }
            case 14: if headers.nameEquals(at: i, "apns-push-type") { typeIndex = typeIndex ?? i }
            case 15: if headers.nameEquals(at: i, "apns-expiration") { expirationIndex = expirationIndex ?? i }
            case 16: if headers.nameEquals(at: i, "apns-collapse-id") { collapseIndex = collapseIndex ?? i }
            default: break
            }
        }

        // The apns-id is echoed on every answer, so read it first (if it is well-formed).
        var apnsId: String?
        if let idIndex {
            let value = headers.value(at: idIndex)
            summary.apnsId = value
            if APNsID.isCanonical(value.utf8)
                && (context.policy.acceptUppercaseApnsId || !value.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x46 })) {
                apnsId = value
            }
        }
        // A refused request's answer carries the apns-id as sent, malformed or not (Apple documents the response's
        // apns-id as the request's; clients such as aioapns match answers by it). Only a request without one gets a
        // generated id.
        let responseId = apnsId ?? summary.apnsId ?? state.ids.generate()
        // Takes the summary rather than capturing it, so the accepted push below can take it over.
        func reject(_ reason: APNsReason, _ summary: RequestSummary, timestamp: Int64? = nil) -> Result<AcceptedPush, Rejection> {
            .failure(Rejection(reason: reason, timestamp: timestamp, apnsId: responseId, summary: summary))
        }

        // 1. Method.
        guard let methodIndex, headers.valueEquals(at: methodIndex, "POST") else { return reject(.methodNotAllowed, summary) }

        // 2. Path: /3/device/<token>. The token's format is judged later (step 5), after the headers.
        guard let pathIndex else { return reject(.badPath, summary) }
        let lastToken = state.lastToken?.token
        let path = headers.withValue(at: pathIndex) { Self.parsePath($0, reusing: lastToken) }
        let tokenWellFormed: Bool
        switch path {
        case .badPath: return reject(.badPath, summary)
        case .missingToken: return reject(.missingDeviceToken, summary)
        case .token(let canonical):
            summary.token = canonical
            tokenWellFormed = true
        case .malformedToken:
            tokenWellFormed = false
        }

        // 3. Repeated headers.
        if duplicate { return reject(.duplicateHeaders, summary) }

        // 4. Header values.
        if idIndex != nil && apnsId == nil { return reject(.badMessageId, summary) }
        if let typeIndex {
            guard let type = headers.withValue(at: typeIndex, { PushType(headerBytes: $0) }) else {
                return reject(.invalidPushType, summary)
            }
            summary.pushType = type
        } else if context.policy.defaultPushTypeToAlert {
            summary.pushType = .alert
            summary.warnings.append("apns-push-type absent: treated as alert (required on watchOS)")
        } else {
            return reject(.invalidPushType, summary)
        }
        let pushType = summary.pushType!
        var priority = 10
        if let priorityIndex {
            let p: Int
            if headers.valueEquals(at: priorityIndex, "10") { p = 10 }
            else if headers.valueEquals(at: priorityIndex, "5") { p = 5 }
            else if headers.valueEquals(at: priorityIndex, "1") { p = 1 }
            else { return reject(.badPriority, summary) }
            priority = p
            summary.priority = p
            if pushType == .background && p == 10 && context.policy.rejectBackgroundPriority10 {
                return reject(.badPriority, summary)
            }
        } else if pushType == .background {
            // Apple defaults to 10 but requires 5 for background pushes; an omitted header is read as
            // "the sender did not ask for 10".
            priority = 5
        }
        if let expirationIndex {
            let text = headers.value(at: expirationIndex)
            guard let e = Int64(text), e >= 0 else { return reject(.badExpirationDate, summary) }
            summary.expiration = e
        }
        if let collapseIndex {
            let value = headers.value(at: collapseIndex)
            guard value.utf8.count <= context.policy.maxCollapseIdBytes else { return reject(.badCollapseId, summary) }
            summary.collapseId = value
        }
        if let topicIndex { summary.topic = headers.withValue(at: topicIndex) { state.topic($0) } }

        // 5. Token format.
        guard tokenWellFormed, let token = summary.token else { return reject(.badDeviceToken, summary) }

        // 6. Authentication.
        if let reason = ProviderAuthenticator.authenticate(
            headers: headers, authorizationIndex: authIndex, context: context, state: &state, summary: &summary) {
            return reject(reason, summary)
        }

        // 7. Topic.
        let topic: String
        switch context.auth {
        case .certificate(let cert):
            if let t = summary.topic {
                topic = t
            } else if !cert.isMultiTopic, let b = cert.bundleId {
                topic = b + pushType.topicSuffix
                summary.topic = topic
            } else {
                return reject(.missingTopic, summary)
            }
            guard pushType.allowedWithCertificate else { return reject(.invalidPushType, summary) }
            // MDM pushes go to the certificate's own UID topic; others to its allowed topics.
            let allowed = pushType == .mdm
                ? topic == cert.bundleId
                : cert.allowedTopics.contains(topic) || cert.allowedTopics.contains(Self.bundleId(of: topic, pushType))
            guard allowed else { return reject(.topicDisallowed, summary) }
        case .token:
            guard let t = summary.topic, !t.isEmpty else { return reject(.missingTopic, summary) }
            topic = t
        }
        let suffix = pushType.topicSuffix
        guard suffix.isEmpty || (topic.utf8.count > suffix.utf8.count
                                 && topic.utf8.suffix(suffix.utf8.count).elementsEqual(suffix.utf8)) else {
            return reject(.badTopic, summary)
        }
        let bundleId = Self.bundleId(of: topic, pushType)
        guard !bundleId.isEmpty, !Self.containsSpace(bundleId) else { return reject(.badTopic, summary) }
        if let reason = ProviderAuthenticator.topicKeyRejection(bundleId: bundleId, context: context, state: state,
                                                                 summary: &summary)
            ?? ProviderAuthenticator.foreignTeamRejection(bundleId: bundleId, context: context, state: &state,
                                                          summary: &summary) {
            return reject(reason, summary)
        }

        // 8. Payload.
        if bodyLength == 0 { return reject(.payloadEmpty, summary) }
        if bodyExceededLimit || bodyLength > pushType.payloadLimit { return reject(.payloadTooLarge, summary) }
        let (scanned, payload) = state.scanPayload(body)
        guard scanned.isObject else {
            summary.warnings.append("payload is not a JSON object")
            return reject(context.policy.nonObjectPayloadReason, summary)
        }
        if pushType == .background && (!scanned.contentAvailable || scanned.otherAPSKeys > 0) {
            summary.warnings.append("background push should carry only content-available: 1 in aps")
        }
        // Nothing to show: often a provider's request format sent to APNs as is. Parsed only then (rare).
        if pushType == .alert && !scanned.hasAlert && !scanned.hasBadge && !scanned.hasSound && !scanned.contentAvailable {
            summary.warnings += body.withUnsafeBufferPointer { ProviderShape.hints(inPayload: Array($0)) }
        }

        // 9. Device token registry.
        // The token is usually the very String cached (see parsePath), so the comparison is a pointer check.
        let generation = context.tokens.generation
        if state.lastToken?.generation != generation || state.lastToken?.token != token {
            state.lastToken = (token, generation, context.tokens.deviceToken(token))
        }
        guard let info = state.lastToken?.info else { return reject(.badDeviceToken, summary) }
        guard info.environment == context.environment else { return reject(.badDeviceToken, summary) }
        guard info.bundleId == bundleId else { return reject(.deviceTokenNotForTopic, summary) }
        if let at = info.unregisteredAt, at <= context.now { return reject(.unregistered, summary, timestamp: at) }
        if let at = info.expiredAt, at <= context.now { return reject(.expiredToken, summary, timestamp: at) }

        // Swapped out rather than copied (`consume summary` is refused here: "compiler bug").
        var taken = RequestSummary()
        swap(&taken, &summary)
        return .success(AcceptedPush(
            summary: taken, bundleId: bundleId, pushType: pushType, priority: priority, apnsId: responseId,
            payload: payload, payloadSummary: scanned, environment: context.environment))
    }

    /// The topic minus the push type's suffix.
    static func bundleId(of topic: String, _ type: PushType) -> String {
        let suffix = type.topicSuffix
        guard !suffix.isEmpty, topic.utf8.count > suffix.utf8.count,
              topic.utf8.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) else { return topic }
        return String(topic.utf8.dropLast(suffix.utf8.count))!
    }

    private static func containsSpace(_ text: borrowing String) -> Bool {
        withUTF8Bytes(text) { $0.count > 0 && memchr($0.baseAddress!, Int32(UInt8(ascii: " ")), $0.count) != nil }
    }

    enum PathOutcome {
        case badPath, missingToken, malformedToken
        case token(String)
    }

    /// Reads `/3/device/<token>` without building a String for the path. A well-formed token equal to
    /// `last` (the connection's previous one, as senders push to the same few devices) comes back as that
    /// String rather than a new one: no allocation, and later comparisons with it are pointer checks.
    static func parsePath(_ p: UnsafeRawBufferPointer, reusing last: String? = nil) -> PathOutcome {
        let bare: StaticString = "/3/device"
        if bytesEqual(p, UnsafeRawBufferPointer(start: bare.utf8Start, count: bare.utf8CodeUnitCount)) { return .missingToken }
        guard let token = DeviceToken.tokenBytes(inPath: p) else { return .badPath }
        if token.isEmpty { return .missingToken }
        var hex = token.count % 2 == 0 && DeviceToken.byteRange.contains(token.count / 2)
        // All hex (the usual case) rules out '/' and '?' too; otherwise look at each byte.
        if !DeviceToken.allHexDigits(token) {
            for b in token {
                if b == UInt8(ascii: "/") || b == UInt8(ascii: "?") { return .badPath }
                if !DeviceToken.isHexDigit(b) { hex = false }
            }
        }
        guard hex else { return .malformedToken }
        if let last, DeviceToken.isCanonical(last, ofWellFormed: token) { return .token(last) }
        return .token(DeviceToken.canonical(token))
    }

}
