import WireBytes

/// The `apns-push-type` values and the rules that hang off each.
public enum PushType: String, CaseIterable, Sendable, Codable, Hashable {
    case alert, background, location, voip, complication, fileprovider, mdm, liveactivity, pushtotalk, widgets, controls

    /// What must follow the bundle id in `apns-topic` (mdm uses the certificate's UID instead).
    public var topicSuffix: String {
        switch self {
        case .voip: return ".voip"
        case .complication: return ".complication"
        case .fileprovider: return ".pushkit.fileprovider"
        case .liveactivity: return ".push-type.liveactivity"
        case .location: return ".location-query"
        case .pushtotalk: return ".voip-ptt"
        case .widgets: return ".push-type.widgets"
        case .controls: return ".push-type.controls"
        case .alert, .background, .mdm: return ""
        }
    }

    /// Largest accepted payload: 5 KB for VoIP, 4 KB otherwise.
    public var payloadLimit: Int {
        self == .voip ? 5120 : 4096
    }

    /// Push types a certificate connection may not send (location queries are token-auth only).
    public var allowedWithCertificate: Bool { self != .location }

    /// Parses the header value exactly as Apple lists it (lowercase).
    public init?(headerValue: String) {
        self.init(rawValue: headerValue)
    }

    /// The same from the header's bytes, without building a String (every push carries this header).
    public init?(headerBytes v: UnsafeRawBufferPointer) {
        // One memcmp per candidate of the right length (`elementsEqual` walked the bytes through an iterator).
        func matches(_ name: StaticString) -> Bool {
            bytesEqual(v, UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        }
        if matches("alert") { self = .alert }
        else if matches("background") { self = .background }
        else if matches("location") { self = .location }
        else if matches("voip") { self = .voip }
        else if matches("complication") { self = .complication }
        else if matches("fileprovider") { self = .fileprovider }
        else if matches("mdm") { self = .mdm }
        else if matches("liveactivity") { self = .liveactivity }
        else if matches("pushtotalk") { self = .pushtotalk }
        else if matches("widgets") { self = .widgets }
        else if matches("controls") { self = .controls }
        else { return nil }
    }
}
