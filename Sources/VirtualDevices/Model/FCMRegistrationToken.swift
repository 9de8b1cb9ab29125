import APNsEmulator
import APNsProtocol
import WireBytes

/// An FCM registration token as this emulator issues it: what the Firebase Messaging SDK on a virtual app gets
/// for its APNs token, and what a sender then addresses (`message.token`, `fid`, legacy `to`).
///
/// The token carries everything FCM keeps about the registration (project number, bundle id, APNs environment,
/// APNs token), so any emulator instance reads it back with no shared table and tokens survive restarts. It has
/// FCM's shape, `<instance id>:APA91b<opaque>`, so senders that check the shape accept it.
package struct FCMRegistrationToken: Equatable, Sendable {
    package var projectNumber: UInt64
    package var bundleId: String
    package var sandbox: Bool
    /// The APNs device token, lowercase hex.
    package var apnsToken: String

    package init(projectNumber: UInt64, bundleId: String, sandbox: Bool, apnsToken: String) {
        self.projectNumber = projectNumber
        self.bundleId = bundleId
        self.sandbox = sandbox
        self.apnsToken = apnsToken.lowercased()
    }

    private static let version: UInt8 = 1
    private static let marker = ":APA91b"

    /// The token text.
    package var text: String {
        var body: [UInt8] = [Self.version, sandbox ? 0 : 1]
        for shift in stride(from: 56, through: 0, by: -8) { body.append(UInt8(truncatingIfNeeded: projectNumber >> UInt64(shift))) }
        let bundle = Array(bundleId.utf8.prefix(255))
        body.append(UInt8(bundle.count))
        body += bundle
        body += Hex.decode(apnsToken) ?? []
        let hash = body.withUnsafeBufferPointer { Fingerprint.of(bytes: $0) }
        let instance = (0..<8).map { UInt8(truncatingIfNeeded: hash >> UInt64(56 - 8 * $0)) }
        return Base64URL.encode(instance) + Self.marker + Base64URL.encode(body)
    }

    /// Reads a token this emulator issued; nil for anything else.
    package init?(text: String) {
        guard let range = text.range(of: Self.marker), text.utf8.count <= 1024,
              let body = Base64URL.decode(Array(text[range.upperBound...].utf8)),
              body.count > 11, body[0] == Self.version, body[1] <= 1
        else { return nil }
        var number: UInt64 = 0
        for byte in body[2..<10] { number = number << 8 | UInt64(byte) }
        let length = Int(body[10])
        guard body.count > 11 + length, let bundle = String(validating: body[11..<(11 + length)], as: UTF8.self) else {
            return nil
        }
        self.init(projectNumber: number, bundleId: bundle, sandbox: body[1] == 0,
                  apnsToken: Hex.lowercase(Array(body[(11 + length)...])))
        // The instance id must be the one issued with this body (a pasted or edited token is not one of ours).
        guard self.text == text else { return nil }
    }
}
