import CNGHTTP2

/// The HTTP/2 SETTINGS a server advertises; changeable on a live connection.
public struct H2Settings: Sendable, Equatable {
    /// SETTINGS_MAX_CONCURRENT_STREAMS (APNs: ~1000, dropped to 1 in some situations).
    public var maxConcurrentStreams: Int = 1000
    /// SETTINGS_INITIAL_WINDOW_SIZE for each stream's receive window.
    public var initialWindowSize: Int = 1 << 20
    /// SETTINGS_MAX_FRAME_SIZE.
    public var maxFrameSize: Int = 16_384
    /// SETTINGS_MAX_HEADER_LIST_SIZE; nil leaves nghttp2's default (unlimited, HPACK-bounded).
    public var maxHeaderListSize: Int? = 16_384
    /// SETTINGS_NO_RFC7540_PRIORITIES=1 (RFC 9218): off by default, as nghttpd's, so the server answers frames
    /// on closed streams as a server keeping RFC 7540's stream states does (what the HTTP/2 conformance suite
    /// checks); on, nghttp2 keeps no priority tree and forgets closed streams sooner.
    public var noRFC7540Priorities: Bool = false

    public init(maxConcurrentStreams: Int = 1000, initialWindowSize: Int = 1 << 20, maxFrameSize: Int = 16_384,
                maxHeaderListSize: Int? = 16_384, noRFC7540Priorities: Bool = false) {
        self.noRFC7540Priorities = noRFC7540Priorities
        self.maxConcurrentStreams = maxConcurrentStreams
        self.initialWindowSize = initialWindowSize
        self.maxFrameSize = maxFrameSize
        self.maxHeaderListSize = maxHeaderListSize
    }

    var entries: [nghttp2_settings_entry] {
        var e = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue),
                                   value: UInt32(clamping: maxConcurrentStreams)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue),
                                   value: UInt32(clamping: initialWindowSize)),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_FRAME_SIZE.rawValue),
                                   value: UInt32(clamping: maxFrameSize)),
        ]
        if noRFC7540Priorities {
            e.append(nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue), value: 1))
        }
        if let m = maxHeaderListSize {
            e.append(nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE.rawValue),
                                            value: UInt32(clamping: m)))
        }
        return e
    }
}

/// HTTP/2 error codes (RFC 9113 §7) for RST_STREAM and GOAWAY.
public enum H2ErrorCode: UInt32, Sendable {
    case noError = 0, protocolError, internalError, flowControlError, settingsTimeout, streamClosed,
        frameSizeError, refusedStream, cancel, compressionError, connectError, enhanceYourCalm,
        inadequateSecurity, http11Required
}
