import APNsEmulator
import APNsProtocol
import H2Transport

/// `/_emulator/clock`: the time every APNs rule reads, movable when the emulator runs on a `ManualClock`.
extension ControlAPI {
    /// `GET /clock` → `{"now": ms, "controllable": bool, "frozen": bool}`.
    func getClock(_ request: ControlRequest) throws -> HTTP1Response {
        try ControlAPIResponse.json(clockState())
    }

    /// `POST /clock/freeze` and `/clock/resume` → the clock's state; 409 on a real-time clock.
    func freezeClock(_ request: ControlRequest, frozen: Bool) throws -> HTTP1Response {
        try request.expectEmptyBody()
        guard let clock = services.clock as? ManualClock else {
            throw ControlAPIError.conflict(
                "the clock follows real time and cannot be frozen: start the emulator with a manual clock")
        }
        try services.shareClock(now: clock.now(), frozen: frozen)
        if frozen { clock.freeze() } else { clock.resume() }
        return try ControlAPIResponse.json(clockState())
    }

    private func clockState() -> ClockState {
        let manual = services.clock as? ManualClock
        return ClockState(now: services.clock.now(), controllable: manual != nil, frozen: manual?.isFrozen ?? false)
    }

    /// `POST /clock/advance {"ms": N}` or `{"seconds": X}` → 200 `{"now": ms}`; 409 on a real-time clock.
    func advanceClock(_ request: ControlRequest) throws -> HTTP1Response {
        guard let clock = services.clock as? ManualClock else {
            throw ControlAPIError.conflict(
                "the clock follows real time and cannot be advanced: start the emulator with a manual clock")
        }
        let body = try request.body()
        let ms = body.int64("ms")
        let seconds = body.double("seconds")
        try body.finish()
        let delta: Int64
        switch (ms, seconds) {
        case (let ms?, nil):
            try ControlAPIValidation.millis(ms, field: "ms")
            delta = ms
        case (nil, let seconds?):
            let limit = Double(ControlAPIValidation.maxMillis) / 1000
            guard seconds >= 0, seconds <= limit else {
                throw ControlAPIError.invalid("seconds", mustBe: "a number from 0 to \(Int64(limit))",
                                              got: "\(seconds)")
            }
            delta = Int64((seconds * 1000).rounded())
        case (nil, nil):
            throw ControlAPIError.missing("ms", "an integer number of milliseconds, or give 'seconds' instead")
        case (_?, _?):
            throw ControlAPIError.invalidField("seconds", message: "give either 'ms' or 'seconds', not both")
        }
        // An absolute time, not a step: this replica's own notice sets the same time again instead of stepping twice.
        let target = clock.now() + delta
        try services.shareClock(now: target, frozen: clock.isFrozen)
        clock.set(to: target)
        for ext in extensions { ext.clockAdvanced(to: clock.now()) }
        return try ControlAPIResponse.json("now", clock.now())
    }

    /// The answer of `GET /clock`.
    struct ClockState: Encodable {
        var now: Millis
        var controllable: Bool
        var frozen: Bool
    }
}
