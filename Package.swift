// swift-tools-version:6.0
// The layers, lowest first (a module may import only those above it in this list):
//   CShims, CNGHTTP2, COpenSSL, CMicroHTTPD, CSQLite, CYAML – C libraries and the macros Swift cannot import
//                                            (CShims also holds nghttp2's per-loop allocation cache)
//   OpenSSLSupport                           – Swift values over libcrypto (keys, certificates, errors)
//   H2Transport                              – epoll loops, TLS, HTTP/2 server and client, HTTP/1.1 server
//   APNsProtocol                             – pure: reasons, validation pipeline, JWT (no I/O)
//   APNsEmulator                             – hosts, certificates, handlers, delivery queue, the emulator itself
//   VirtualDevices                           – iPhones/Macs: OS notification model, app delegates, push plugin
//   Scenarios                                – scenario files (libyaml), the runner, its reports
//   EmulatorTesting                          – the whole emulator in-process on port 0, for tests (a product)
//   EmulatorCLI                              – subcommands, parsing, help
//   apns-emulator                            – the executable (calls EmulatorCLI)
import PackageDescription

/// Release builds of the hot-path modules skip Swift's dynamic exclusivity checks; debug builds, which the
/// tests run, keep them. Each target using it says why its classes are safe without them.
let uncheckedExclusivityInRelease: SwiftSetting = .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))

let package = Package(
    name: "apns-emulator",
    products: [
        .executable(name: "apns-emulator", targets: ["apns-emulator"]),
        .library(name: "H2Transport", targets: ["H2Transport"]),
        .library(name: "APNsEmulator", targets: ["APNsEmulator"]),
        .library(name: "VirtualDevices", targets: ["VirtualDevices"]),
        .library(name: "EmulatorTesting", targets: ["EmulatorTesting"]),
        .library(name: "SpawnedProcess", targets: ["SpawnedProcess"]),
    ],
    targets: [
        .systemLibrary(
            name: "CNGHTTP2",
            pkgConfig: "libnghttp2",
            providers: [.apt(["libnghttp2-dev"])]
        ),
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CMicroHTTPD",
            pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(
            // The executable's allocator (see Sources/apns-emulator/main.swift).
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
        .target(
            name: "CShims",
            dependencies: ["COpenSSL", "CMicroHTTPD"],
            cSettings: [.define("_GNU_SOURCE"), .define("OPENSSL_API_COMPAT", to: "30000")]
        ),
        .target(
            // Test support: child processes without Foundation.Process (see SpawnedProcess.swift).
            name: "SpawnedProcess",
            dependencies: ["CShims"]
        ),
        .target(
            name: "OpenSSLSupport",
            dependencies: ["COpenSSL", "CShims"]
        ),
        .target(
            name: "H2Transport",
            dependencies: ["CNGHTTP2", "COpenSSL", "CMicroHTTPD", "CShims", "OpenSSLSupport"],
            swiftSettings: [
                // Loop-confined classes are never accessed concurrently (checked by preconditionInLoop), and
                // the dynamic exclusivity checks on their fields cost ~5% of server CPU per request
                // (measured with perf on the bench).
                uncheckedExclusivityInRelease,
            ]
        ),
        .target(
            name: "APNsProtocol",
            dependencies: ["H2Transport", "OpenSSLSupport"]
        ),
        .target(
            name: "APNsEmulator",
            dependencies: ["APNsProtocol", "H2Transport", "OpenSSLSupport", "CSQLite", "CShims"],
            swiftSettings: [
                // As in H2Transport: the handler's per-connection state is loop-confined, and the dynamic
                // exclusivity checks on its fields were 0.6% of server CPU per push (perf, bench/apns.sh load).
                // Shared state is behind Mutex, whose exclusive access is checked statically.
                uncheckedExclusivityInRelease,
            ]
        ),
        .target(
            name: "VirtualDevices",
            dependencies: ["APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport"],
            swiftSettings: [
                // Its classes with mutable fields, FarmCaches and FateRecorder, are reached only under the device
                // farm's Mutex (through an OSContext, which exists only inside that lock), one call at a time, and
                // neither calls back into itself while it is changing a field: no access can overlap another.
                // The checks on their fields ran on every push delivered to a device (~0.4% of server CPU).
                uncheckedExclusivityInRelease,
            ]
        ),
        .target(
            name: "Scenarios",
            dependencies: ["CYAML", "APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport", "VirtualDevices"]
        ),
        .target(
            name: "EmulatorTesting",
            dependencies: ["APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport", "VirtualDevices"]
        ),
        .target(
            name: "EmulatorCLI",
            dependencies: ["APNsEmulator", "CShims", "APNsProtocol", "H2Transport", "OpenSSLSupport", "Scenarios",
                           "VirtualDevices"]
        ),
        .executableTarget(
            name: "apns-emulator",
            dependencies: ["EmulatorCLI", "CJemalloc"]
        ),
        .testTarget(
            name: "H2TransportTests",
            dependencies: ["SpawnedProcess", "H2Transport", "OpenSSLSupport"]
        ),
        .testTarget(
            name: "OpenSSLSupportTests",
            dependencies: ["SpawnedProcess", "OpenSSLSupport"]
        ),
        .testTarget(
            name: "APNsProtocolTests",
            dependencies: ["SpawnedProcess", "APNsProtocol", "H2Transport", "OpenSSLSupport"]
        ),
        .testTarget(
            name: "APNsEmulatorTests",
            dependencies: ["SpawnedProcess", "APNsEmulator", "APNsProtocol", "EmulatorTesting", "H2Transport", "OpenSSLSupport",
                           "VirtualDevices"]
        ),
        .testTarget(
            name: "VirtualDevicesTests",
            dependencies: ["SpawnedProcess", "VirtualDevices", "APNsEmulator", "APNsProtocol", "EmulatorTesting", "H2Transport"],
            // Read from the source tree by path (#filePath), not bundled as resources.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ScenariosTests",
            dependencies: ["Scenarios", "APNsEmulator", "VirtualDevices", "EmulatorTesting", "H2Transport"]
        ),
        .testTarget(
            name: "EmulatorCLITests",
            dependencies: ["SpawnedProcess", "EmulatorCLI", "APNsEmulator", "EmulatorTesting", "H2Transport", "OpenSSLSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
