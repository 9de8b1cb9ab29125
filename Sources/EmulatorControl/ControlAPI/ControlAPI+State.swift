import APNsEmulator
import H2Transport
import StateStore

/// `/_emulator/reset` and `/_emulator/state`: start over, or save and restore keys, tokens and faults.
extension ControlAPI {
    /// `POST /reset` → 204: keys, tokens, faults and the journal are gone (the sample key comes back if
    /// the emulator registers it at start).
    func reset(_ request: ControlRequest) throws -> HTTP1Response {
        try request.expectEmptyBody()
        try persisting { try services.reset() }
        for ext in extensions { ext.reset() }
        return ControlAPIResponse.noContent()
    }

    /// `GET /state` → the `EmulatorState` snapshot (what `PUT /state` and `--import` read back).
    func exportState(_ request: ControlRequest) throws -> HTTP1Response {
        try ControlAPIResponse.json(services.exportState())
    }

    /// `PUT /state` → 204 after replacing keys, tokens and faults with the snapshot. The whole snapshot is
    /// decoded and validated first (`StateImportReader`); a 400 leaves the current state untouched.
    func importState(_ request: ControlRequest) throws -> HTTP1Response {
        let state = try StateImportReader.read(request.http.body)
        try persisting { try services.importState(state) }
        return ControlAPIResponse.noContent()
    }
}
