/// What an app's Notification Service Extension does with a push, scripted by a scenario or the control
/// API: the changes it makes, what it decrypts and downloads, how long it takes, and whether and when it
/// calls its content handler.
public struct ServiceExtensionScript: Sendable, Equatable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// `threadIdentifier` (a chat app grouping rooms when the payload could not carry `thread-id`).
    public var threadId: String?
    public var category: String?
    public var badge: Int?
    public var sound: String?
    /// Fields read from the push's payload by a dotted path (`data.thread-id`, `custom.a.room`): the text at
    /// that path, or the original field when the payload has nothing there.
    public var from = PayloadFields()
    /// Decrypts a payload field (base64 of nonce ‖ ciphertext ‖ tag, AES-256-GCM) into a content field.
    public var decrypt: Decrypt?
    public var attachments: [AttachmentRequest]
    /// Time one attachment download takes, and the time when the URL is already in the container's cache.
    public var downloadMillis: Int64
    public var cachedDownloadMillis: Int64
    /// Time spent before calling the handler, besides downloads.
    public var processingMillis: Int64
    public var handler: Handler
    /// What `serviceExtensionTimeWillExpire` does one second before the deadline.
    public var timeWillExpire: TimeWillExpire
    /// Peak memory the extension reaches, and the cap it runs under (about 50 MB).
    public var memoryMB: Int
    public var memoryLimitMB: Int

    public struct Decrypt: Sendable, Codable, Equatable {
        /// Top-level payload key holding the sealed text.
        public var field: String
        /// 32-byte key, hex.
        public var keyHex: String
        /// `body`, `title` or `subtitle`.
        public var into: String

        public init(field: String, keyHex: String, into: String = "body") {
            self.field = field
            self.keyHex = keyHex
            self.into = into
        }
    }

    public struct PayloadFields: Sendable, Codable, Equatable {
        public var title, subtitle, body, threadId, category: String?

        public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, threadId: String? = nil,
                    category: String? = nil) {
            self.title = title
            self.subtitle = subtitle
            self.body = body
            self.threadId = threadId
            self.category = category
        }

        var isEmpty: Bool { self == PayloadFields() }
    }

    public struct AttachmentRequest: Sendable, Codable, Equatable {
        public var identifier: String
        /// `file://` path, or a file the emulator serves at `…/_emulator/files/{name}`.
        public var url: String
        /// A dotted payload path whose text is the URL (`fcm_options.image`); `url` is then unused.
        public var urlFrom: String?
        public var typeHint: String?

        public init(identifier: String, url: String, urlFrom: String? = nil, typeHint: String? = nil) {
            self.identifier = identifier
            self.url = url
            self.urlFrom = urlFrom
            self.typeHint = typeHint
        }
    }

    public enum Handler: String, Sendable, Codable, CaseIterable {
        /// Calls the content handler when its work is done (if that is within the 30 s budget).
        case calls
        /// Calls it only after the deadline (too late: timeWillExpire decides).
        case late
        /// Never calls it, not even from timeWillExpire: the original content is shown.
        case never
    }

    public enum TimeWillExpire: String, Sendable, Codable, CaseIterable {
        /// Delivers the best attempt so far (the recommended implementation).
        case deliversBestAttempt
        /// Does nothing: at the deadline the original content is shown.
        case nothing
    }

    public init(title: String? = nil, subtitle: String? = nil, body: String? = nil, threadId: String? = nil,
                category: String? = nil, badge: Int? = nil, sound: String? = nil, decrypt: Decrypt? = nil,
                attachments: [AttachmentRequest] = [], downloadMillis: Int64 = 1_000, cachedDownloadMillis: Int64 = 100,
                processingMillis: Int64 = 0, handler: Handler = .calls, timeWillExpire: TimeWillExpire = .deliversBestAttempt,
                memoryMB: Int = 12, memoryLimitMB: Int = 50) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.threadId = threadId
        self.category = category
        self.badge = badge
        self.sound = sound
        self.decrypt = decrypt
        self.attachments = attachments
        self.downloadMillis = downloadMillis
        self.cachedDownloadMillis = cachedDownloadMillis
        self.processingMillis = processingMillis
        self.handler = handler
        self.timeWillExpire = timeWillExpire
        self.memoryMB = memoryMB
        self.memoryLimitMB = memoryLimitMB
    }
}

/// Written with the names the control API reads (`downloadMs`, `threadIdFrom`, `decrypt.key`…), so an app's
/// view can be sent back as it is.
extension ServiceExtensionScript: Encodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        for (name, value) in [("title", title), ("subtitle", subtitle), ("body", body), ("threadId", threadId),
                              ("category", category), ("sound", sound), ("titleFrom", from.title),
                              ("subtitleFrom", from.subtitle), ("bodyFrom", from.body), ("threadIdFrom", from.threadId),
                              ("categoryFrom", from.category)] {
            try c.encodeIfPresent(value, forKey: Key(name))
        }
        try c.encodeIfPresent(badge, forKey: Key("badge"))
        if let decrypt {
            try c.encode(["field": decrypt.field, "key": decrypt.keyHex, "into": decrypt.into], forKey: Key("decrypt"))
        }
        try c.encode(attachments.map { a in
            var o = ["identifier": a.identifier]
            if let path = a.urlFrom { o["urlFrom"] = path } else { o["url"] = a.url }
            if let hint = a.typeHint { o["typeHint"] = hint }
            return o
        }, forKey: Key("attachments"))
        try c.encode(downloadMillis, forKey: Key("downloadMs"))
        try c.encode(cachedDownloadMillis, forKey: Key("cachedDownloadMs"))
        try c.encode(processingMillis, forKey: Key("processingMs"))
        try c.encode(handler, forKey: Key("handler"))
        try c.encode(timeWillExpire, forKey: Key("timeWillExpire"))
        try c.encode(memoryMB, forKey: Key("memoryMB"))
        try c.encode(memoryLimitMB, forKey: Key("memoryLimitMB"))
    }
}

/// An attachment on a displayed notification.
public struct AttachmentRecord: Sendable, Codable, Equatable {
    public var identifier: String
    public var url: String
    public var type: AttachmentType
    public var bytes: Int
    public var durationSeconds: Double?
}
