import Testing

@testable import VirtualDevices

@Suite("FateLog: push fates kept as bytes")
struct FateLogTests {
    /// Fate `n`: every kind in turn, and a notification id that is absent, another string, or the apns-id (as
    /// for a push shown without a collapse id: the log then stores it once).
    static func fate(_ n: Int) -> PushFate {
        let apnsId = "00000000-0000-4000-8000-\(String(format: "%012d", n))"
        return PushFate(apnsId: apnsId, deviceId: "iphone-\(n % 3)",
                        bundleId: "com.example.app", token: String(repeating: "ab", count: 32),
                        fate: PushFate.Kind.allCases[n % PushFate.Kind.allCases.count],
                        code: FateCode.allCases[n % FateCode.allCases.count],
                        reason: n % 2 == 0 ? "shown as a banner" : "réglé: ⏰ \(n)", at: 1_767_225_600_000 + Int64(n),
                        notificationId: n % 4 == 0 ? nil : n % 4 == 1 ? apnsId : "note-\(n)")
    }

    @Test func everyFieldReadsBackAsWritten() {
        var log = FateLog(capacity: 100)
        for n in 0..<20 { log.append(Self.fate(n)) }
        #expect(log.matching() == (0..<20).map(Self.fate))
    }

    /// Past the capacity the oldest go first, across many chunk turnovers of the arena underneath.
    @Test func onlyTheNewestCapacityFatesAreKeptOldestFirst() {
        var log = FateLog(capacity: 1_000)
        for n in 0..<25_000 { log.append(Self.fate(n)) }
        #expect(log.count == 1_000)
        let kept = log.matching()
        #expect(kept.first == Self.fate(24_000) && kept.last == Self.fate(24_999))
        #expect(kept == (24_000..<25_000).map(Self.fate))
    }

    @Test func matchingComparesStoredBytesAndDecodesOnlyTheMatchesInOrder() {
        var log = FateLog(capacity: 10)
        for n in 0..<30 { log.append(Self.fate(n)) }
        #expect(log.matching(deviceId: "iphone-1").map(\.at) == [22, 25, 28].map { 1_767_225_600_000 + Int64($0) })
        #expect(log.matching(deviceId: "iphone-1", bundleId: "com.example.other").isEmpty)
        #expect(log.matching(deviceId: "iphone-").isEmpty && log.matching(deviceId: "iphone-11").isEmpty)
        let id = Self.fate(25).apnsId
        #expect(log.matching(apnsId: id.uppercased()) == [Self.fate(25)])
        #expect(log.matching(apnsId: id, bundleId: "com.example.app") == [Self.fate(25)])
        #expect(log.matching(apnsId: String(id.dropLast())).isEmpty)
        #expect(log.matching(apnsId: "Ä" + id.dropFirst()).isEmpty)
    }

    @Test func theNewestFatesOfManyInstallsComeFromOneWalkAsEachAppsOwnMatchingWould() {
        var log = FateLog(capacity: 5_000)
        // Three devices with one app, and a second app on one of them: installs that share a device id (and so its
        // fingerprint) must still be told apart by bundle id.
        for n in 0..<8_000 {
            var f = Self.fate(n)
            if n % 7 == 0 { f.bundleId = "com.example.other" }
            log.append(f)
        }
        let installs = [InstallKey(deviceId: "iphone-0", bundleId: "com.example.app"),
                        InstallKey(deviceId: "iphone-0", bundleId: "com.example.other"),
                        InstallKey(deviceId: "iphone-2", bundleId: "com.example.app"),
                        InstallKey(deviceId: "iphone-9", bundleId: "com.example.app"),
                        InstallKey(deviceId: "iphone-", bundleId: "com.example.app")]
        // With the real fingerprint, and with one under which every device id collides (the bytes then decide).
        for (recent, collide) in [1, 3, 16, 700, 5_000].flatMap({ r in [(r, false), (r, true)] }) {
            let newest = collide ? log.newest(recent, of: installs, fingerprint: { _ in 42 }) : log.newest(recent, of: installs)
            for key in installs {
                let expected = Array(log.matching(deviceId: key.deviceId, bundleId: key.bundleId).suffix(recent))
                #expect(newest[key]?.map(\.fate) == expected, "\(key), recent \(recent), colliding \(collide)")
            }
            #expect(newest[installs[3]]?.isEmpty == true && newest[installs[4]]?.isEmpty == true)
            #expect(newest[installs[1]]?.isEmpty == false, "the second app of a device is found apart from the first")
        }
        // Installs that all have at least `recent` fates (the walk back may stop before the oldest chunk): the same answer.
        let busy = Array(installs.prefix(3))
        for recent in [1, 16, 700] {
            let newest = log.newest(recent, of: busy)
            for key in busy {
                #expect(newest[key]?.map(\.fate) == Array(log.matching(deviceId: key.deviceId, bundleId: key.bundleId).suffix(recent)))
            }
        }
        #expect(log.newest(0, of: installs).isEmpty && log.newest(5, of: []).isEmpty)
    }
}
