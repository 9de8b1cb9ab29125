import Foundation
import SpawnedProcess
import Testing

/// `GET /_emulator/journal?after=&waitSeconds=` waits for the next entry instead of answering empty, without holding
/// up other control calls (the dashboard's live journal).
@Suite("Journal long-poll", .timeLimit(.minutes(3)))
struct JournalLongPollTests {
    static func curl(_ arguments: [String]) async throws -> String {
        try await SpawnedProcess.runToCompletion("curl", ["-s"] + arguments, timeout: .seconds(40)).stdout
    }

    /// Timed from the push's answer, not from the start: on a loaded CI machine spawning curl alone can take seconds.
    /// A poll that never woke would answer at its 30 s deadline, which the second bound rules out.
    @Test func aLongPollAnswersWhenTheNextRequestIsJournaledAndOtherCallsGoOnMeanwhile() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let port = try served.port("production")
        let pollStarted = Date()
        let waited = Task { () async throws -> (String, Date) in
            let body = try await Self.curl([control + "/_emulator/journal?after=0&waitSeconds=30"])
            return (body, Date())
        }
        try await Task.sleep(for: .milliseconds(400))
        _ = try await Self.curl(["--http2", "--cacert", ExecutableTests.packageRoot.appendingPathComponent("certs/ca.pem").path,
                                 "-d", "{}", "https://127.0.0.1:\(port)/3/device/00"])
        let pushAnswered = Date()
        let (body, pollAnswered) = try await waited.value
        let entries = try #require((try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 1, "\(body)")
        #expect(entries.first?["path"] as? String == "/3/device/00")
        let afterPush = pollAnswered.timeIntervalSince(pushAnswered)
        let afterPoll = pollAnswered.timeIntervalSince(pollStarted)
        #expect(afterPush < 8 && afterPoll < 28, "answered \(afterPush) s after the push, \(afterPoll) s after the poll began")
    }

    /// Keep-alive connections opened before the poll are spread over libmicrohttpd's four polling threads, so some
    /// share the waiting poll's thread: each must still be answered at once (a call that takes the control API's
    /// turn, on a connection already open). With 15 of them, the chance that none shares its thread is 1 in 75.
    @Test func aWaitingPollHoldsUpNoOtherConnection() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let address = try #require(URL(string: control))
        let script = """
            import http.client, sys, threading, time
            host, port = sys.argv[1], int(sys.argv[2])
            conns = [http.client.HTTPConnection(host, port, timeout=20) for _ in range(16)]
            for c in conns:
                c.request("GET", "/_emulator/keys"); c.getresponse().read()
            def poll():
                conns[0].request("GET", "/_emulator/journal?after=0&waitSeconds=4"); conns[0].getresponse().read()
            waiter = threading.Thread(target=poll); waiter.start(); time.sleep(0.5)
            slow = []
            for i, c in enumerate(conns[1:], 1):
                began = time.monotonic()
                c.request("GET", "/_emulator/keys"); r = c.getresponse(); r.read()
                if r.status != 200 or time.monotonic() - began > 2: slow.append(i)
            waiter.join()
            print("slow", slow)
            """
        let probe = try await SpawnedProcess.runToCompletion(
            "python3", ["-c", script, address.host ?? "127.0.0.1", String(address.port ?? 0)], timeout: .seconds(60)).stdout
        #expect(probe.trimmingCharacters(in: .whitespacesAndNewlines) == "slow []", "held up by the waiting poll: \(probe)")
    }

    @Test func aLongPollWithNothingNewAnswersEmptyAtItsDeadline() async throws {
        let served = try await ServedEmulator()
        defer { served.stop() }
        let control = try #require(served.endpoints["control"])
        let started = Date()
        let body = try await Self.curl([control + "/_emulator/journal?after=0&waitSeconds=1"])
        let seconds = Date().timeIntervalSince(started)
        #expect(body == #"{"entries":[]}"#)
        #expect(seconds >= 0.9 && seconds < 25, "answered after \(seconds) s")
        #expect(try await Self.curl(["-o", "/dev/null", "-w", "%{http_code}", control + "/_emulator/journal?waitSeconds=31"]) == "400")
    }
}
