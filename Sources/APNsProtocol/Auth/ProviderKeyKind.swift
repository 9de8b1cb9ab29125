/// The kinds of provider-token signing key Apple issues.
public enum ProviderKeyKind: String, Sendable, Codable, CaseIterable, Hashable {
    /// Legacy team key: valid for every topic of the team in both environments.
    case team
    /// Team-scoped key (2025+): restricted to one environment.
    case teamScoped = "team-scoped"
    /// Topic-specific key: one environment and an explicit topic list (≤ 400 topics).
    case topic
}
