import APNsEmulator

extension EmulatorServices {
    /// In-memory services with the sample key of `certificates` registered: every harness's fixture.
    static func forFuzzing(_ certificates: String, clock: any EmulatorClock = SystemClock()) -> EmulatorServices {
        var configuration = EmulatorConfiguration()
        configuration.certificatesDirectory = certificates
        configuration.ephemeral = true
        return try! EmulatorServices(configuration: configuration, clock: clock)
    }
}
