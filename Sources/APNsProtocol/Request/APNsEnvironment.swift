/// Production or sandbox: separate token spaces, hosts and certificate extensions.
public enum APNsEnvironment: String, Sendable, Codable, CaseIterable, Hashable {
    case production
    case sandbox
}
