/// One attribute of an X.509 distinguished name, such as `CN=Apple Push Services: com.example.app`.
///
/// Names are ordered lists, not dictionaries: Apple's push certificates put `UID` next to `CN`, and
/// clients that print or compare subjects see the order, so both the builder and the parser keep it.
public struct NameEntry: Sendable, Hashable, CustomStringConvertible {
    /// Dotted attribute OID, e.g. `"2.5.4.3"` for commonName.
    public var oid: String
    /// OpenSSL's short name (`"CN"`, `"UID"`, `"OU"`, `"O"`, `"C"`), or the dotted OID when OpenSSL has none.
    public var shortName: String
    /// The attribute's text.
    public var value: String

    /// - Parameters:
    ///   - oid: Dotted attribute OID.
    ///   - shortName: Display name; pass the OID again when there is none.
    ///   - value: The attribute's text.
    public init(oid: String, shortName: String, value: String) {
        self.oid = oid
        self.shortName = shortName
        self.value = value
    }

    /// `CN`: what Apple puts the push-certificate kind and bundle id in.
    public static func commonName(_ value: String) -> NameEntry {
        NameEntry(oid: "2.5.4.3", shortName: "CN", value: value)
    }

    /// `UID` (OID 0.9.2342.19200300.100.1.1): the bundle id in Apple's push certificates.
    public static func userID(_ value: String) -> NameEntry {
        NameEntry(oid: "0.9.2342.19200300.100.1.1", shortName: "UID", value: value)
    }

    /// `OU`: the team id in Apple's push certificates.
    public static func organizationalUnit(_ value: String) -> NameEntry {
        NameEntry(oid: "2.5.4.11", shortName: "OU", value: value)
    }

    /// `O`: the developer's organization name.
    public static func organization(_ value: String) -> NameEntry {
        NameEntry(oid: "2.5.4.10", shortName: "O", value: value)
    }

    /// `C`: two-letter country code (encoded as PrintableString by OpenSSL, as RFC 5280 requires).
    public static func country(_ value: String) -> NameEntry {
        NameEntry(oid: "2.5.4.6", shortName: "C", value: value)
    }

    public var description: String { "\(shortName)=\(value)" }
}
