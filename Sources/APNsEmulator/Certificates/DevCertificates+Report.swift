import Foundation

extension DevCertificates {
    /// What `ensure` did, for the `certs` command to print and tests to assert on.
    public struct Report: Sendable, Equatable {
        /// The certificates folder.
        public var directory: URL
        /// Files written by this call (all of them, or none: the set is always regenerated whole).
        public var written: [URL]
        /// Files left untouched because the existing set was healthy.
        public var kept: [URL]
        /// Why the set was written (`"forced"`, `"missing ca.pem"`, `"server.pem expires within 30 days"` …);
        /// nil when everything was kept.
        public var regenerationReason: String?
    }
}
