/// The operating system of a virtual device; the plugin's behaviour differs in a few documented places
/// (no launch image on macOS, cold start from the first `didReceive` on macOS).
public enum Platform: String, Sendable, Codable, CaseIterable {
    case iOS
    case macOS
}
