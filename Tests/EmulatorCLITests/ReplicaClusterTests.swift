import APNsEmulator
import APNsProtocol
import Foundation
import H2Transport
import OpenSSLSupport
import SpawnedProcess
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Replicas sharing live state through a real `redis-server` on loopback (`serve --state-store`): what one
/// replica is told, every other applies; the cluster journal holds every replica's answers once.
@Suite("Replicas sharing state through Redis", .serialized, .timeLimit(.minutes(3)))
struct ReplicaClusterTests {
    /// How soon a change on one replica must be applied by another (it is a pub/sub notice and one read).
    static let propagationBound: Duration = .seconds(1)

    /// One `serve` with `--state-store`, and its control API through curl.
    final class Replica {
        let served: ServedEmulator
        let id: String

        init(_ id: String, store: String, extra: [String] = []) async throws {
            self.id = id
            served = try await ServedEmulator(["--state-store", store, "--replica-id", id, "--no-sample-key"] + extra)
        }

        var control: String { served.endpoints["control"] ?? "" }

        /// `(status, JSON object)` of a control call (status 0 when curl could not run). Awaited, never blocking a
        /// thread of the test pool: a blocked pool stalls every other test of the run.
        func call(_ method: String, _ path: String, _ body: String? = nil) async -> (status: Int, json: [String: Any]) {
            await ReplicaClusterTests.call(control, method, path, body)
        }

        /// SIGTERM, and wait for the exit (a clean stop copies the rest of the journal first).
        func terminate() async {
            served.process.terminate()
            while served.process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        }

        func kill9() { served.stop() }
    }

    /// `Replica.call` on the control API at `control`.
    static func call(_ control: String, _ method: String, _ path: String, _ body: String? = nil) async
        -> (status: Int, json: [String: Any])
    {
        var arguments = ["-X", method, "-w", "\n%{http_code}", control + path]
        if let body { arguments += ["-H", "content-type: application/json", "-d", body] }
        let out = await ReplicaClusterTests.curl(arguments)
        let status = Int(out.split(separator: "\n").last ?? "") ?? 0
        let text = out.split(separator: "\n").dropLast().joined(separator: "\n")
        let json = (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:]
        return (status, json)
    }

    /// A `redis-server` and replicas on it, stopped together (SIGKILL) when the test ends.
    final class Cluster {
        let redis: RedisServerProcess
        private(set) var replicas: [Replica] = []

        init(_ ids: [String], extra: [String] = []) async throws {
            redis = try await RedisServerProcess()
            for id in ids { replicas.append(try await Replica(id, store: redis.url, extra: extra)) }
        }

        /// `redis-cli` against the cluster's Redis: its trimmed output, then anything it wrote to stderr.
        func redisCLI(_ arguments: String...) async throws -> String {
            let run = try await SpawnedProcess.runToCompletion(
                "redis-cli", ["-p", String(redis.port)] + arguments, timeout: .seconds(10))
            return run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + run.stderr
        }

        subscript(id: String) -> Replica { replicas.first { $0.id == id }! }

        func stop() {
            for r in replicas { r.kill9() }
            redis.stop()
        }
    }

    /// A team key registered through the control API, and tokens signed by it.
    struct Signer {
        static let keyId = "CLUSTERK01"
        static let teamId = "CLUSTERT01"
        let key: PrivateKey

        init() throws { key = try PrivateKey.generateP256() }

        var registration: String {
            let pem = key.publicKeyPEM.replacingOccurrences(of: "\n", with: "\\n")
            return #"{"keyId":"\#(Self.keyId)","teamId":"\#(Self.teamId)","kind":"team","publicKeyPem":"\#(pem)"}"#
        }

        func jwt() throws -> String {
            try ProviderTokenSigner.makeToken(privateKey: key, keyId: Self.keyId, teamId: Self.teamId,
                                              issuedAt: Int64(Date().timeIntervalSince1970))
        }
    }

    /// A count the push tasks raise and the test reads.
    final class Progress: Sendable {
        let count = Atomic<Int>(0)
    }

    struct Answer {
        var status: Int
        var reason: String?
        var timestamp: Int64?
        var apnsId: String?
    }

    /// One push to a replica's production listener.
    static func push(_ client: H2Client, to replica: Replica, token: String, jwt: String) async throws -> Answer {
        try await push(client, port: try #require(Int(try replica.served.port("production"))), token: token, jwt: jwt)
    }

    static func push(_ client: H2Client, port: Int, token: String, jwt: String) async throws -> Answer {
        let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
        defer { connection.close() }
        return try await send(connection, port: port, token: token, jwt: jwt)
    }

    static func send(_ connection: H2ClientConnection, port: Int, token: String, jwt: String,
                     alert: String = "clustered") async throws -> Answer {
        let request = H2Request(method: "POST", authority: "api.push.apple.com:\(port)", path: "/3/device/\(token)",
                                headers: [H2Header("authorization", "bearer \(jwt)"), H2Header("apns-topic", "com.example.app")],
                                body: Array(#"{"aps":{"alert":"\#(alert)"}}"#.utf8))
        let response = try await connection.send(request)
        var apnsId: String?
        for i in 0..<response.fields.count where response.fields.name(at: i) == "apns-id" {
            apnsId = response.fields.value(at: i)
        }
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return Answer(status: response.status, reason: body["reason"] as? String,
                      timestamp: (body["timestamp"] as? NSNumber)?.int64Value, apnsId: apnsId)
    }

    /// Polls `check` until it holds or `bound` passes; returns how long it took (nil: never).
    static func within(_ bound: Duration, _ check: () async throws -> Bool) async rethrows -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < bound {
            if try await check() { return ContinuousClock.now - start }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return try await check() ? ContinuousClock.now - start : nil
    }

    /// curl's stdout, awaited (`-s` added).
    static func curl(_ arguments: [String]) async -> String {
        (try? await SpawnedProcess.runToCompletion("curl", ["-s"] + arguments, timeout: .seconds(30)).stdout) ?? ""
    }

    static func newToken(on replica: Replica) async throws -> String {
        let created = await replica.call("POST", "/_emulator/tokens", #"{"bundleId":"com.example.app","environment":"production"}"#)
        try #require(created.status == 201, "POST /_emulator/tokens answered \(created.status)")
        return try #require(created.json["token"] as? String)
    }

    static func client() throws -> H2Client {
        try H2Client(tls: TLSClientConfiguration(trustRootsFile: TestCommandTests.certs + "/ca.pem"))
    }

    @Test func aKeyAndTokenRegisteredOnOneReplicaAreAcceptedByAnotherWithinTheBound() async throws {
        let cluster = try await Cluster(["one", "two"])
        defer { cluster.stop() }
        let one = cluster["one"], two = cluster["two"]
        let signer = try Signer()
        #expect(await one.call("POST", "/_emulator/keys", signer.registration).status == 201)
        let token = try await Self.newToken(on: one)

        let took = await Self.within(Self.propagationBound) { await two.call("GET", "/_emulator/tokens/\(token)").status == 200 }
        #expect(took != nil, "the token registered on one was not known to two within \(Self.propagationBound)")
        #expect(await two.call("GET", "/_emulator/keys/\(Signer.keyId)").status == 200)

        let client = try Self.client()
        defer { client.shutdown() }
        let answer = try await Self.push(client, to: two, token: token, jwt: try signer.jwt())
        #expect(answer.status == 200, "two answered \(answer.status) \(answer.reason ?? "")")

        // Removing the key on two: one answers InvalidProviderToken from then on.
        #expect(await two.call("DELETE", "/_emulator/keys/\(Signer.keyId)").status == 204)
        let refused = try await Self.within(Self.propagationBound) {
            try await Self.push(client, to: one, token: token, jwt: try signer.jwt()).reason == "InvalidProviderToken"
        }
        #expect(refused != nil, "one still accepted a key two removed")
    }

    @Test func anUnregistrationReachesEveryReplicaAs410WithItsTimestamp() async throws {
        let cluster = try await Cluster(["a", "b", "c"])
        defer { cluster.stop() }
        let replicas = cluster.replicas
        let signer = try Signer()
        #expect(await replicas[0].call("POST", "/_emulator/keys", signer.registration).status == 201)
        let token = try await Self.newToken(on: replicas[0])
        let client = try Self.client()
        defer { client.shutdown() }
        for r in replicas {
            let accepted = try await Self.within(Self.propagationBound) {
                try await Self.push(client, to: r, token: token, jwt: try signer.jwt()).status == 200
            }
            #expect(accepted != nil, "replica \(r.id) did not accept the new token")
        }

        let unregistered = await replicas[1].call("POST", "/_emulator/tokens/\(token)/unregister")
        let at = try #require((unregistered.json["unregisteredAt"] as? NSNumber)?.int64Value)
        for r in replicas {
            var last: Answer?
            let gone = try await Self.within(Self.propagationBound) {
                last = try await Self.push(client, to: r, token: token, jwt: try signer.jwt())
                return last?.status == 410
            }
            #expect(gone != nil, "replica \(r.id) answered \(last?.status ?? 0) after the unregistration")
            #expect(last?.reason == "Unregistered")
            #expect(last?.timestamp == at, "replica \(r.id) gave another timestamp")
        }
        // And it stays so: no replica goes back to accepting the token.
        for r in replicas {
            for _ in 0..<5 {
                let again = try await Self.push(client, to: r, token: token, jwt: try signer.jwt())
                #expect(again.status == 410 && again.timestamp == at, "replica \(r.id) answered \(again.status)")
            }
        }
    }

    @Test func faultsShapingAndResetApplyToEveryReplica() async throws {
        let cluster = try await Cluster(["one", "two"])
        defer { cluster.stop() }
        let one = cluster["one"], two = cluster["two"]
        let signer = try Signer()
        #expect(await one.call("POST", "/_emulator/keys", signer.registration).status == 201)
        let token = try await Self.newToken(on: one)
        let client = try Self.client()
        defer { client.shutdown() }

        let fault = #"{"id":"cluster-fault","token":"\#(token)","action":{"type":"reason","reason":"BadDeviceToken"}}"#
        #expect(await one.call("POST", "/_emulator/faults", fault).status == 201)
        let faulted = try await Self.within(Self.propagationBound) {
            try await Self.push(client, to: two, token: token, jwt: try signer.jwt()).reason == "BadDeviceToken"
        }
        #expect(faulted != nil, "two did not apply the fault added on one")
        #expect(await two.call("DELETE", "/_emulator/faults/cluster-fault").status == 204)
        let cleared = await Self.within(Self.propagationBound) {
            (await one.call("GET", "/_emulator/faults").json["faults"] as? [Any])?.isEmpty == true
        }
        #expect(cleared != nil, "one kept a fault two removed")

        #expect(await two.call("PUT", "/_emulator/shaping", #"{"tokenRateLimit":3,"tokenRateWindowMs":60000}"#).status == 200)
        let shaped = await Self.within(Self.propagationBound) {
            (await one.call("GET", "/_emulator/shaping").json["tokenRateLimit"] as? Int) == 3
        }
        #expect(shaped != nil, "one did not take two's shaping")

        // One push answered by each, so both journals hold something the reset must clear.
        _ = try await Self.push(client, to: one, token: token, jwt: try signer.jwt())
        _ = try await Self.push(client, to: two, token: token, jwt: try signer.jwt())
        #expect(await two.call("POST", "/_emulator/reset").status == 204)
        let forgotten = await Self.within(Self.propagationBound) {
            let tokens = await one.call("GET", "/_emulator/tokens").json["tokens"] as? [Any]
            let keys = await one.call("GET", "/_emulator/keys").json["keys"] as? [Any]
            let journal = await one.call("GET", "/_emulator/journal/count").json["count"] as? Int
            let shaping = await one.call("GET", "/_emulator/shaping").json["tokenRateLimit"] as? Int
            return tokens?.isEmpty == true && keys?.isEmpty == true && journal == 0 && shaping == 0
        }
        #expect(forgotten != nil, "one still held tokens, keys, journal entries or shaping after two's reset")
        let emptied = await Self.within(Self.propagationBound) {
            (await two.call("GET", "/_emulator/cluster/journal/count").json["count"] as? Int) == 0
        }
        #expect(emptied != nil, "the cluster journal kept entries across the reset")
    }

    /// How a replica is stopped under load: SIGTERM on the default `--cluster-journal behind` (it copies what is
    /// left, says it stopped) or SIGKILL on `durable` (nothing more: only what its answers waited for is in the
    /// cluster journal).
    enum Stop: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case terminated, killed
        var testDescription: String { self == .terminated ? "SIGTERM, journal behind" : "SIGKILL, journal durable" }
        /// How the cluster lists it afterwards.
        var state: String { self == .terminated ? "stopped" : "lost" }
        var options: [String] { self == .terminated ? [] : ["--cluster-journal", "durable"] }
    }

    @Test(arguments: Stop.allCases)
    func everyAcceptedPushIsInTheClusterJournalOnceWhenAReplicaStopsUnderLoad(_ stop: Stop) async throws {
        let cluster = try await Cluster(["a", "b", "c"], extra: stop.options)
        defer { cluster.stop() }
        let replicas = cluster.replicas
        let signer = try Signer()
        #expect(await replicas[0].call("POST", "/_emulator/keys", signer.registration).status == 201)
        let token = try await Self.newToken(on: replicas[0])
        let client = try Self.client()
        defer { client.shutdown() }
        let jwt = try signer.jwt()
        for r in replicas {
            let ready = try await Self.within(Self.propagationBound) {
                try await Self.push(client, to: r, token: token, jwt: jwt).status == 200
            }
            try #require(ready != nil, "replica \(r.id) never accepted the token")
        }
        #expect(await replicas[0].call("DELETE", "/_emulator/cluster/journal").status == 204)

        // Each replica gets pushes on one connection for a bounded count; b is stopped once it has
        // accepted 50, so it stops mid-load however fast the machine is.
        let perReplica = 1_000
        let acceptedByB = Progress()
        let targets = try replicas.map { (id: $0.id, port: try #require(Int(try $0.served.port("production")))) }
        let pushes = Task { () throws -> [String: String] in  // apns-id → replica
            try await withThrowingTaskGroup(of: [(String, String)].self) { group in
                for target in targets {
                    group.addTask {
                        let connection = try await client.connect(host: "127.0.0.1", port: target.port,
                                                                  serverName: "api.push.apple.com")
                        defer { connection.close() }
                        var seen: [(String, String)] = []
                        for _ in 0..<perReplica {
                            guard let answer = try? await Self.send(connection, port: target.port, token: token, jwt: jwt,
                                                                   alert: "load")
                            else { break }
                            if answer.status == 200, let id = answer.apnsId {
                                seen.append((id.lowercased(), target.id))
                                if target.id == "b" { acceptedByB.count.add(1, ordering: .relaxed) }
                            }
                        }
                        return seen
                    }
                }
                var accepted: [String: String] = [:]
                for try await batch in group { for (id, r) in batch { accepted[id] = r } }
                return accepted
            }
        }
        let midway = await Self.within(.seconds(30)) { acceptedByB.count.load(ordering: .relaxed) >= 50 }
        try #require(midway != nil, "b never accepted 50 pushes")
        switch stop {
        case .terminated: await replicas[1].terminate()
        case .killed: replicas[1].kill9()
        }
        let accepted = try await pushes.value
        #expect(accepted.values.contains("b"), "b accepted nothing before it stopped")
        #expect(accepted.values.filter { $0 == "b" }.count < perReplica, "b finished before it was stopped")
        #expect(accepted.values.filter { $0 == "a" }.count == perReplica)

        // A terminated b copied what was left; with durable every answer waited for its copy, so a killed b lost none.
        var journal: [String: Int] = [:]
        var extra: [String: String] = [:]  // apns-id → replica, for load entries no client saw accepted
        var lastPage: (status: Int, json: [String: Any]) = (0, [:])
        let complete = await Self.within(.seconds(5)) {
            journal = [:]
            extra = [:]
            var after: String?
            repeat {
                let page = await replicas[0].call("GET", "/_emulator/cluster/journal?limit=1000" + (after.map { "&after=\($0)" } ?? ""))
                lastPage = page
                let entries = page.json["entries"] as? [[String: Any]] ?? []
                for e in entries {
                    guard let entry = e["entry"] as? [String: Any], let id = (entry["apnsId"] as? String)?.lowercased(),
                          entry["status"] as? Int == 200, (entry["payload"] as? String)?.contains("load") == true else { continue }
                    journal[id, default: 0] += 1
                    if accepted[id] == nil { extra[id] = e["replica"] as? String }
                }
                after = entries.isEmpty ? nil : page.json["next"] as? String
            } while after != nil
            return accepted.keys.allSatisfy { journal[$0] != nil }
        }
        let missing = accepted.keys.filter { journal[$0] == nil }.count
        let page = String(describing: lastPage.json).prefix(300)
        #expect(complete != nil, "\(missing) accepted pushes missing from the cluster journal (last page: \(lastPage.status) \(page))")
        #expect(journal.values.allSatisfy { $0 == 1 }, "an entry appears more than once")
        // A client whose connection closed under it may miss an answer b sent; a and c ran throughout.
        #expect(extra.values.allSatisfy { $0 == "b" }, "200s no client saw, from replicas that never stopped: \(extra)")

        // A killed replica is lost once its heartbeats lapse (3 s).
        var states: [String: String] = [:]
        let listed = await Self.within(.seconds(6)) {
            let listing = await replicas[0].call("GET", "/_emulator/cluster")
            states = Dictionary(uniqueKeysWithValues: (listing.json["replicas"] as? [[String: Any]] ?? []).compactMap { r in
                (r["id"] as? String).map { ($0, r["state"] as? String ?? "") }
            })
            return states == ["a": "running", "b": stop.state, "c": "running"]
        }
        #expect(listed != nil, "\(states)")

        // Totals add up every replica's last report (a and c report once a second; b's last came as it stopped, or
        // up to a second before it was killed). One warm-up push each came first.
        let counted = stop == .terminated ? accepted.count + 3 : accepted.values.filter { $0 != "b" }.count + 2
        let totalled = await Self.within(.seconds(3)) {
            let totals = await replicas[2].call("GET", "/_emulator/cluster").json["totals"] as? [String: Any] ?? [:]
            return (totals["accepted"] as? Int ?? 0) >= counted && totals[stop.state] as? Int == 1
        }
        let totals = await replicas[2].call("GET", "/_emulator/cluster").json["totals"]
        #expect(totalled != nil, "\(totals ?? "no totals")")
        // /metrics shows the cluster as the replica's last beat read it (at most a second or so old).
        var metrics = ""
        let scraped = await Self.within(.seconds(3)) {
            metrics = await Self.curl([replicas[2].control + "/metrics"])
            return metrics.contains(#"apns_emulator_cluster_replicas{state="\#(stop.state)"} 1"#)
                && metrics.contains(#"apns_emulator_cluster_replicas{state="running"} 2"#)
        }
        #expect(scraped != nil, "\(metrics.split(separator: "\n").filter { $0.contains("cluster") })")
    }

    @Test func aPushAcceptedByAnyReplicaReachesTheVirtualDeviceOnItsOwner() async throws {
        let cluster = try await Cluster(["owner", "other"])
        defer { cluster.stop() }
        let owner = cluster["owner"], other = cluster["other"]
        let signer = try Signer()
        #expect(await owner.call("POST", "/_emulator/keys", signer.registration).status == 201)
        #expect(await owner.call("POST", "/_emulator/devices",
                           #"{"id":"iphone","apps":[{"bundleId":"com.example.app","build":"appStore"}]}"#).status == 201)
        let app = "/_emulator/devices/iphone/apps/com.example.app"
        _ = await owner.call("POST", app + "/calls", #"{"call":"RequestAuthorization","options":[1,2,3]}"#)
        let got = await owner.call("POST", app + "/calls", #"{"call":"GetToken"}"#)
        let token = try #require((got.json["result"] as? [String: Any])?["token"] as? String, "\(got.json)")
        #expect(await owner.call("POST", app + "/actions", #"{"action":"background"}"#).status == 200)
        #expect(await owner.call("POST", "/_emulator/cluster/sync").status == 200)
        #expect(await other.call("GET", "/_emulator/tokens/\(token)").json["replica"] as? String == "owner")

        let client = try Self.client()
        defer { client.shutdown() }
        let answer = try await Self.push(client, to: other, token: token, jwt: try signer.jwt())
        #expect(answer.status == 200, "other answered \(answer.status) \(answer.reason ?? "")")
        let id = try #require(answer.apnsId?.lowercased())

        // The device on the owner shows it, though the owner never saw the request.
        let shown = await Self.within(.seconds(5)) {
            let list = await owner.call("GET", app + "/notifications").json["notifications"] as? [[String: Any]] ?? []
            return list.contains { ($0["apnsId"] as? String)?.lowercased() == id || ($0["identifier"] as? String)?.lowercased() == id }
        }
        let shownNow = await owner.call("GET", app + "/notifications").json
        #expect(shown != nil, "the owner's device never showed the push other accepted: \(shownNow)")
        #expect((await owner.call("GET", "/_emulator/journal/count").json["count"] as? Int) == 0, "the owner answered no push")
        // Any replica says where the device lives (from the reports, once a second).
        var found: [String: Any] = [:]
        let located = await Self.within(.seconds(3)) {
            found = await other.call("GET", "/_emulator/cluster/devices/iphone").json
            return found["replica"] as? String == "owner"
        }
        #expect(located != nil, "\(found)")
        #expect((found["endpoints"] as? [String: Any])?["control"] as? String == owner.control)
        #expect((found["device"] as? [String: Any])?["id"] as? String == "iphone", "\(found)")
        #expect(await other.call("GET", "/_emulator/cluster/devices/nowhere").status == 404)

        // Reads through either replica merge both: the devices of each, the fate of the push on the owner's device,
        // and the app's own views from the replica holding it.
        #expect(await other.call("POST", "/_emulator/devices", #"{"id":"mac","platform":"macOS"}"#).status == 201)
        let devices = await owner.call("GET", "/_emulator/cluster/devices").json
        let holders = Dictionary((devices["devices"] as? [[String: Any]] ?? []).compactMap { d in
            (d["id"] as? String).map { ($0, d["replica"] as? String ?? "") }
        }, uniquingKeysWith: { a, _ in a })
        #expect(holders == ["iphone": "owner", "mac": "other"], "\(devices)")
        #expect((devices["unreachable"] as? [Any])?.isEmpty == true, "\(devices)")
        let fates = await other.call("GET", "/_emulator/cluster/deliveries?apnsId=\(id)").json
        let fate = (fates["deliveries"] as? [[String: Any]] ?? []).first
        #expect(fate?["replica"] as? String == "owner", "\(fates)")
        #expect((fate?["apnsId"] as? String)?.lowercased() == id, "\(fates)")
        let throughOther = await other.call("GET", "/_emulator/cluster" + app.dropFirst("/_emulator".count) + "/notifications").json
        #expect(!throughOther.isEmpty && NSDictionary(dictionary: throughOther).isEqual(to: shownNow),
                "the app's notification centre read through other differs from the owner's: \(throughOther)")
        #expect(await other.call("GET", "/_emulator/cluster" + app.dropFirst("/_emulator".count) + "/nothing").status == 404)
        let deliveries = await other.call("GET", "/_emulator/cluster").json["deliveries"] as? [String: Any]
        #expect(deliveries?["handedOver"] as? Int == 1)
        let received = await owner.call("GET", "/_emulator/cluster").json["deliveries"] as? [String: Any]
        #expect(received?["received"] as? Int == 1)
    }

    /// One request to a replica's production listener under the broadcast management host.
    static func broadcastRequest(_ client: H2Client, _ replica: Replica, _ method: String, _ path: String, jwt: String,
                                 channel: String? = nil, headers: [H2Header] = [], body: String = "") async throws
        -> H2Response
    {
        let port = try #require(Int(try replica.served.port("production")))
        let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api-manage-broadcast.push.apple.com")
        defer { connection.close() }
        var all = [H2Header("authorization", "bearer \(jwt)")]
        if let channel { all.append(H2Header("apns-channel-id", channel)) }
        return try await connection.send(H2Request(method: method, authority: "api-manage-broadcast.push.apple.com",
                                                   path: path, headers: all + headers, body: Array(body.utf8)))
    }

    @Test func aBroadcastChannelCreatedOnOneReplicaIsUsableAndDeletableOnAnother() async throws {
        let cluster = try await Cluster(["one", "two"])
        defer { cluster.stop() }
        let one = cluster["one"], two = cluster["two"]
        let signer = try Signer()
        #expect(await one.call("POST", "/_emulator/keys", signer.registration).status == 201)
        #expect(await one.call("POST", "/_emulator/cluster/sync").status == 200)
        let client = try Self.client()
        defer { client.shutdown() }
        let jwt = try signer.jwt()
        let created = try await Self.broadcastRequest(client, one, "POST", "/1/apps/com.example.app/channels", jwt: jwt,
                                                      body: #"{"message-storage-policy":1,"push-type":"LiveActivity"}"#)
        #expect(created.status == 201)
        let channel = try #require(created["apns-channel-id"])

        var sent: H2Response?
        let usable = try await Self.within(Self.propagationBound) {
            sent = try await Self.broadcastRequest(
                client, two, "POST", "/4/broadcasts/apps/com.example.app", jwt: jwt, channel: channel,
                headers: [H2Header("apns-push-type", "LiveActivity"), H2Header("apns-priority", "10")],
                body: #"{"aps":{"event":"update","timestamp":1700000000,"content-state":{"score":"1-0"}}}"#)
            return sent?.status == 200
        }
        #expect(usable != nil, "two answered \(sent?.status ?? 0) \(sent?.bodyText ?? "") for one's channel")

        let deleted = try await Self.broadcastRequest(client, two, "DELETE", "/1/apps/com.example.app/channels", jwt: jwt,
                                                      channel: channel)
        #expect(deleted.status == 204)
        var read: H2Response?
        let gone = try await Self.within(Self.propagationBound) {
            read = try await Self.broadcastRequest(client, one, "GET", "/1/apps/com.example.app/channels", jwt: jwt,
                                                   channel: channel)
            return read?.bodyText.contains("ChannelNotRegistered") == true
        }
        #expect(gone != nil, "one still had the channel two deleted: \(read?.status ?? 0) \(read?.bodyText ?? "")")
    }

    @Test func theManualClockMovedOnOneReplicaMovesOnEvery() async throws {
        let cluster = try await Cluster(["one", "two"], extra: ["--manual-clock"])
        defer { cluster.stop() }
        let one = cluster["one"], two = cluster["two"]
        let before = try #require((await one.call("GET", "/_emulator/clock").json["now"] as? NSNumber)?.int64Value)
        let moved = await one.call("POST", "/_emulator/clock/advance", #"{"seconds":7200}"#)
        let now = try #require((moved.json["now"] as? NSNumber)?.int64Value)
        #expect(now >= before + 7_200_000)
        let followed = await Self.within(Self.propagationBound) {
            ((await two.call("GET", "/_emulator/clock").json["now"] as? NSNumber)?.int64Value ?? 0) >= now
        }
        #expect(followed != nil, "two's clock did not follow one's two-hour jump")
        #expect(await two.call("POST", "/_emulator/clock/resume").status == 200)
        let running = await Self.within(Self.propagationBound) {
            await one.call("GET", "/_emulator/clock").json["frozen"] as? Bool == false
        }
        #expect(running != nil, "one's clock stayed frozen after two let the cluster's run")
    }

    @Test func afterWritesThroughTwoReplicasAtOnceSyncOnEitherMeansBothHaveAll() async throws {
        let cluster = try await Cluster(["one", "two"])
        defer { cluster.stop() }
        let one = cluster["one"], two = cluster["two"]
        let both = [one, two]
        // Interleaved writers: each replica's own changes and the other's reach it in the store's order.
        let made = try await withThrowingTaskGroup(of: [String].self) { group in
            for (i, r) in both.enumerated() {
                let control = r.control
                group.addTask {
                    var tokens: [String] = []
                    for _ in 0..<15 {
                        let out = await Self.curl(["-X", "POST", "-d", #"{"bundleId":"com.example.app\#(i)","environment":"production"}"#,
                                                         control + "/_emulator/tokens"])
                        if let t = (try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])?["token"] as? String {
                            tokens.append(t)
                        }
                    }
                    return tokens
                }
            }
            var all: [String] = []
            for try await tokens in group { all += tokens }
            return all
        }
        #expect(made.count == 30)
        for r in both {
            let synced = await r.call("POST", "/_emulator/cluster/sync?timeoutSeconds=5")
            #expect(synced.status == 200, "sync on \(r.id): \(synced.status) \(synced.json)")
            for other in both {
                let listed = Set((await other.call("GET", "/_emulator/tokens").json["tokens"] as? [[String: Any]] ?? [])
                    .compactMap { $0["token"] as? String })
                #expect(Set(made).isSubset(of: listed), "\(other.id) lacks \(Set(made).subtracting(listed).count) tokens after sync on \(r.id)")
            }
        }
    }

    @Test func afterSyncEveryLiveReplicaHasEveryChangeAndAStalledOneIsNamed() async throws {
        let cluster = try await Cluster(["one", "two"])
        defer { cluster.stop() }
        let one = cluster["one"], two = cluster["two"]
        // Both report themselves live before the sync counts them.
        let bothLive = await Self.within(.seconds(5)) {
            let replicas = await one.call("GET", "/_emulator/cluster").json["replicas"] as? [[String: Any]] ?? []
            return replicas.filter { $0["state"] as? String == "running" }.count == 2
        }
        try #require(bothLive != nil)

        var tokens: [String] = []
        for _ in 0..<20 { tokens.append(try await Self.newToken(on: one)) }
        let synced = await one.call("POST", "/_emulator/cluster/sync")
        #expect(synced.status == 200)
        #expect((synced.json["version"] as? Int ?? 0) >= 20)
        // No polling: once sync answered, two has every one of them.
        for token in tokens { #expect(await two.call("GET", "/_emulator/tokens/\(token)").status == 200) }

        // A replica that is live (its last report has not lapsed) but applies nothing holds the sync up, named.
        kill(two.served.process.processIdentifier, SIGSTOP)
        defer { kill(two.served.process.processIdentifier, SIGCONT) }
        _ = try await Self.newToken(on: one)
        let stalled = await one.call("POST", "/_emulator/cluster/sync?timeoutSeconds=1")
        kill(two.served.process.processIdentifier, SIGCONT)
        #expect(stalled.status == 503)
        #expect((stalled.json["error"] as? String)?.contains("two at") == true, "\(stalled.json)")
    }

    @Test func aReplicaKilledOutrightIsReportedLost() async throws {
        let cluster = try await Cluster(["one", "two"])
        defer { cluster.stop() }
        let one = cluster["one"], two = cluster["two"]
        let running = await Self.within(.seconds(5)) {
            let replicas = await one.call("GET", "/_emulator/cluster").json["replicas"] as? [[String: Any]] ?? []
            return replicas.contains { $0["id"] as? String == "two" && $0["state"] as? String == "running" }
        }
        try #require(running != nil, "two never reported itself running")
        two.kill9()
        let lost = await Self.within(.seconds(6)) {
            let replicas = await one.call("GET", "/_emulator/cluster").json["replicas"] as? [[String: Any]] ?? []
            return replicas.contains { $0["id"] as? String == "two" && $0["state"] as? String == "lost" }
        }
        #expect(lost != nil, "a replica killed with SIGKILL was not reported lost once its heartbeats lapsed")
    }

    @Test func theFeedRecoversWhenRedisRestarts() async throws {
        var redis = try await RedisServerProcess()
        defer { redis.stop() }
        let one = try await Replica("one", store: redis.url)
        defer { one.kill9() }
        let two = try await Replica("two", store: redis.url)
        defer { two.kill9() }
        let port = redis.port
        redis.stop()
        redis = try await RedisServerProcess(port: port)
        // The restarted server is empty; a token registered now must still reach two.
        var token: String?
        let registered = await Self.within(.seconds(5)) {
            token = await one.call("POST", "/_emulator/tokens", #"{"bundleId":"com.example.app","environment":"production"}"#)
                .json["token"] as? String
            return token != nil
        }
        try #require(registered != nil, "one could not write to the restarted Redis")
        let seen = await Self.within(.seconds(5)) { await two.call("GET", "/_emulator/tokens/\(token!)").status == 200 }
        #expect(seen != nil, "two's feed did not resubscribe after Redis restarted")
    }

    @Test func anUnreachableStoreIsReportedAtStartNamingIt() async throws {
        let port = try ScaleProfileTests.freePort()
        let refused = try await SpawnedProcess.runToCompletion(
            ExecutableTests.binary.path,
            ["serve", "--production-port", "0", "--sandbox-port", "0", "--control-port", "0", "--front-door-port", "0",
             "--certs", "certs", "--state-store", "redis://127.0.0.1:\(port)"],
            directory: ExecutableTests.packageRoot, timeout: .seconds(30))
        #expect(refused.status != 0 && !refused.timedOut)
        #expect(refused.stderr.contains("redis://127.0.0.1:\(port)/0"), "stderr: \(refused.stderr)")
        #expect(refused.stderr.contains("connecting"), "stderr: \(refused.stderr)")

        let usage = try await SpawnedProcess.runToCompletion(
            ExecutableTests.binary.path, ["serve", "--state-store", "http://127.0.0.1:6379"], timeout: .seconds(30))
        #expect(usage.status == 64)
        #expect(usage.stderr.contains("redis://HOST:PORT[/DB]"), "stderr: \(usage.stderr)")
    }

    /// The answer of `push`, or nil when none came within `bound` (a held answer must never wait for ever). The
    /// push is not awaited past the bound: a request whose answer is held does not end on cancellation.
    static func answered(within bound: Duration, _ push: @escaping @Sendable () async throws -> Answer) async throws -> Answer? {
        let first = Mutex<CheckedContinuation<Answer?, any Error>?>(nil)
        return try await withCheckedThrowingContinuation { continuation in
            first.withLock { $0 = continuation }
            let finish: @Sendable (Result<Answer?, any Error>) -> Void = { result in
                first.withLock { c in c.take() }?.resume(with: result)
            }
            Task {
                do { finish(.success(try await push())) } catch { finish(.failure(error)) }
            }
            Task { try? await Task.sleep(for: bound); finish(.success(nil)) }
        }
    }

    /// One `--cluster-journal durable` replica with a key registered, and a client to push with: answers held
    /// for their copy show whether the copier went on.
    final class DurableSolo {
        let cluster: Cluster
        let solo: Replica
        let signer: Signer
        let client: H2Client
        let jwt: String
        let port: Int

        init(_ extra: [String] = []) async throws {
            cluster = try await Cluster(["solo"], extra: ["--cluster-journal", "durable"] + extra)
            solo = cluster["solo"]
            signer = try Signer()
            client = try ReplicaClusterTests.client()
            jwt = try signer.jwt()
            port = try #require(Int(try solo.served.port("production")))
            try await registerKey()
        }

        func registerKey() async throws {
            let registered = await solo.call("POST", "/_emulator/keys", signer.registration)
            try #require(registered.status == 201, "POST /_emulator/keys answered \(registered.status)")
        }

        /// The answer to one push to `token`, or nil when none came within 10 s.
        func push(_ token: String) async throws -> Answer? {
            let (client, port, jwt) = (client, port, jwt)
            return try await ReplicaClusterTests.answered(within: .seconds(10)) {
                try await ReplicaClusterTests.push(client, port: port, token: token, jwt: jwt)
            }
        }

        func clusterJournalCount() async -> Int? {
            await solo.call("GET", "/_emulator/cluster/journal/count").json["count"] as? Int
        }

        /// The apns-ids of the cluster journal's first 1,000 entries, oldest first (lowercased).
        func clusterJournalIds() async -> [String] {
            let entries = await solo.call("GET", "/_emulator/cluster/journal?limit=1000").json["entries"] as? [[String: Any]] ?? []
            return entries.compactMap { (($0["entry"] as? [String: Any])?["apnsId"] as? String)?.lowercased() }
        }

        /// Whether the cluster journal's first 1,000 entries hold the push answered with `apnsId`.
        func clusterJournalHolds(apnsId: String) async -> Bool {
            await clusterJournalIds().contains(apnsId.lowercased())
        }

        func stop() {
            client.shutdown()
            cluster.stop()
        }
    }

    /// The cluster journal keeps about `--journal-capacity` entries: the oldest batches go, the newest stay, and
    /// the count says what the stream holds.
    @Test func theClusterJournalDropsItsOldestBatchesPastTheCapacity() async throws {
        let fixture = try await DurableSolo(["--journal-capacity", "20"])
        defer { fixture.stop() }
        let token = try await Self.newToken(on: fixture.solo)
        var ids: [String] = []
        // One at a time, each answered once copied: batches of one entry.
        for _ in 0..<60 {
            let answer = try await fixture.push(token)
            try #require(answer?.status == 200, "push \(ids.count) answered \(String(describing: answer?.status))")
            ids.append(try #require(answer?.apnsId).lowercased())
        }
        let held = await fixture.clusterJournalIds()
        #expect(held.count == (await fixture.clusterJournalCount()), "the count disagrees with the stream")
        #expect(!held.isEmpty && held.count <= 20, "\(held.count) entries kept for a capacity of 20")
        #expect(held == Array(ids.suffix(held.count)), "what is kept is not the newest, in order")
    }

    /// A reset counted in Redis whose notice never arrived (as when the feed was reconnecting): the copier, refused
    /// for the old count, applies the reset there and then, rather than hold accepted answers for ever.
    @Test func aResetWhoseNoticeWasLostIsAppliedByTheCopierAndHoldsNoAnswerForEver() async throws {
        let fixture = try await DurableSolo()
        defer { fixture.stop() }
        let token = try await Self.newToken(on: fixture.solo)
        #expect(try await fixture.push(token)?.status == 200)

        let counted = try await fixture.cluster.redisCLI("INCR", "apns-emulator:epoch")
        #expect(counted == "1", "redis-cli: \(counted)")
        let during = try await fixture.push(token)
        #expect(during?.status == 200, "the push accepted after the unheard reset was not answered within 10 s")
        // Applied here as the notice would have: the journal and the key are forgotten.
        let journal = await fixture.solo.call("GET", "/_emulator/journal").json["entries"] as? [Any]
        #expect(journal?.isEmpty == true, "the local journal was not cleared: \(journal ?? [])")
        let refused = try await fixture.push(token)
        #expect(refused?.status == 403, "the key outlived the reset: \(String(describing: refused?.status))")

        // Batches carry the new count from then on: a push after registering again is copied.
        try await fixture.registerKey()
        let again = try await Self.newToken(on: fixture.solo)
        let after = try await fixture.push(again)
        #expect(after?.status == 200)
        let id = try #require(after?.apnsId)
        // Durable: answered once copied, so the cluster journal holds it now.
        #expect(await fixture.clusterJournalHolds(apnsId: id), "the push after the reset was applied was not copied")
    }

    /// A Redis that lost its data (here flushed; a restart without persistence is the same) counts fewer resets
    /// than the replica: its count is taken, so accepted answers are not held for ever and pushes are copied again.
    @Test func aStoreThatLostItsResetCountIsTakenAsItIsAndCopyingGoesOn() async throws {
        let fixture = try await DurableSolo()
        defer { fixture.stop() }
        #expect(await fixture.solo.call("POST", "/_emulator/reset").status == 204)
        try await fixture.registerKey()
        let token = try await Self.newToken(on: fixture.solo)

        let flushed = try await fixture.cluster.redisCLI("FLUSHALL")
        #expect(flushed.contains("OK"), "redis-cli: \(flushed)")
        let pushed = try await fixture.push(token)
        #expect(pushed?.status == 200, "the push after the store lost its reset count was not answered within 10 s")
        let id = try #require(pushed?.apnsId)
        #expect(await fixture.clusterJournalHolds(apnsId: id), "the push was not copied into the emptied store")
        #expect(await fixture.clusterJournalCount() == 1)
    }

    /// A live replica that does not answer (stopped with SIGSTOP, its report not lapsed yet) is named by the
    /// merged reads, and a device found nowhere else is 503, not a 404 that may be wrong.
    @Test func aReplicaThatDoesNotAnswerIsNamedAndAnUnfoundDeviceIsUnavailable() async throws {
        let cluster = try await Cluster(["one", "two"])
        defer { cluster.stop() }
        let one = cluster["one"], two = cluster["two"]
        #expect(await one.call("POST", "/_emulator/devices", #"{"id":"iphone"}"#).status == 201)
        #expect(await two.call("POST", "/_emulator/devices", #"{"id":"mac","platform":"macOS"}"#).status == 201)
        let listed = await Self.within(.seconds(5)) {
            let replicas = await one.call("GET", "/_emulator/cluster").json["replicas"] as? [[String: Any]] ?? []
            return replicas.filter {
                (($0["report"] as? [String: Any])?["deviceIds"] as? [String])?.count == 1 && $0["state"] as? String == "running"
            }.count == 2
        }
        try #require(listed != nil, "both replicas never reported their device")
        let pid = two.served.process.processIdentifier
        kill(pid, SIGSTOP)
        defer { kill(pid, SIGCONT) }
        // Hung but still counted live (its liveness key kept past its TTL), however slowly the calls below start;
        // two's next beat after SIGCONT sets the TTL again.
        let kept = try await cluster.redisCLI("PERSIST", "apns-emulator:alive:two")
        try #require(kept == "1", "redis-cli: \(kept)")
        let control = one.control
        async let merged = Self.call(control, "GET", "/_emulator/cluster/devices")
        async let nowhere = Self.call(control, "GET", "/_emulator/cluster/devices/nowhere")
        async let found = Self.call(control, "GET", "/_emulator/cluster/devices/iphone")
        let (devices, missing, iphone) = await (merged, nowhere, found)
        kill(pid, SIGCONT)
        #expect(devices.status == 200)
        #expect((devices.json["devices"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String } == ["iphone"], "\(devices.json)")
        let unreachable = devices.json["unreachable"] as? [[String: Any]] ?? []
        #expect(unreachable.map { $0["replica"] as? String } == ["two"], "\(devices.json)")
        #expect(missing.status == 503, "\(missing)")
        #expect((missing.json["error"] as? String)?.contains("did not answer") == true, "\(missing.json)")
        #expect(iphone.status == 200 && iphone.json["replica"] as? String == "one", "\(iphone)")
        #expect(iphone.json["controlURL"] as? String == one.control, "\(iphone.json)")
    }

}
