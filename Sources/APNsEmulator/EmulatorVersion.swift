/// The emulator's version, in one place: the CLI prints it and every APNs and control response names it.
public enum EmulatorVersion {
    public static let current = "0.1.0"
    /// Header carried by every response so a user can tell the emulator from Apple (LocalStack's `x-localstack`).
    public static let headerName = "x-apns-emulator"
}
