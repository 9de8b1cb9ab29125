// swift-tools-version:6.0
// The layers, lowest first (a module may import only those above it in this list; `make test` builds with
// SwiftPM's explicit import check, so an undeclared import fails):
//   CShims, CNGHTTP2, COpenSSL, CMicroHTTPD, CSQLite, CHiredis, CJansson, CYAML, CJemalloc – C libraries and what Swift cannot
//                                            import (CShims also holds nghttp2's per-loop allocation cache)
//   WireBytes                                – byte comparisons, UTF-8 views, hex, the header list
//   OpenSSLSupport                           – Swift values over libcrypto (keys, certificates, errors)
//   H2Transport                              – epoll loops, TLS, HTTP/2 server and client, HTTP/1.1 server
//   APNsProtocol                             – pure: reasons, validation, answers, JWT (no I/O, no transport)
//   StateStore                               – what persists across restarts: its SQLite store, and Redis shared by replicas
//   APNsEmulator                             – the provider API: services, registries, journal, pipeline, handler
//   EmulatorControl                          – the control API and the Emulator that starts it with the listeners
//   VirtualDevices                           – iPhones/Macs: OS notification model, app delegates, push plugin
//   FrontDoors                               – FCM's (and Google OAuth's) and OneSignal's APIs over TLS, relayed to APNs
//   Dashboard                                – the web dashboard on the control port (assets, compose, scenario runs)
//   Scenarios                                – scenario files (libyaml), the runner, its reports
//   EmulatorTesting                          – the whole emulator in-process on port 0, for tests (a product)
//   EmulatorCLI                              – subcommands, parsing, help
//   apns-emulator                            – the executable (calls EmulatorCLI)
//   FuzzTargets, apns-emulator-fuzz          – the parsers driven by arbitrary input (`make fuzz`, replayed in tests)
//   SpawnedProcess                           – test support: child processes without Foundation.Process
import PackageDescription

let package = Package(
    name: "apns-emulator",
    products: [
        .executable(name: "apns-emulator", targets: ["apns-emulator"]),
        .library(name: "H2Transport", targets: ["H2Transport"]),
        .library(name: "OpenSSLSupport", targets: ["OpenSSLSupport"]),
        .library(name: "APNsProtocol", targets: ["APNsProtocol"]),
        .library(name: "APNsEmulator", targets: ["APNsEmulator"]),
        .library(name: "EmulatorControl", targets: ["EmulatorControl"]),
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
            name: "CJansson",
            pkgConfig: "jansson",
            providers: [.apt(["libjansson-dev"])]
        ),
        .systemLibrary(
            name: "CYAML",
            pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]
        ),
        .systemLibrary(
            // The shared state store of replicas (`serve --state-store redis://…`). No pkgConfig: hiredis.pc adds
            // -D_FILE_OFFSET_BITS=64, which SwiftPM drops with a warning on every build; the header is found as
            // <hiredis/hiredis.h> and the library on the default path (libhiredis-dev, scripts/install-deps.sh).
            name: "CHiredis"
        ),
        .systemLibrary(
            // The executable's allocator (see Sources/apns-emulator/main.swift).
            name: "CJemalloc",
            pkgConfig: "jemalloc",
            providers: [.apt(["libjemalloc-dev"])]
        ),
        .target(
            name: "CShims",
            dependencies: ["COpenSSL", "CMicroHTTPD", "CJansson"],
            cSettings: [.define("_GNU_SOURCE"), .define("OPENSSL_API_COMPAT", to: "30000")]
        ),
        .target(
            // Test support: child processes without Foundation.Process (see SpawnedProcess.swift).
            name: "SpawnedProcess",
            dependencies: ["CShims"]
        ),
        .target(
            // Byte comparisons, UTF-8 views and the header list: below both the transport and the protocol.
            name: "WireBytes"
        ),
        .target(
            name: "OpenSSLSupport",
            dependencies: ["COpenSSL", "CShims"]
        ),
        .target(
            name: "H2Transport",
            dependencies: ["CNGHTTP2", "COpenSSL", "CMicroHTTPD", "CShims", "OpenSSLSupport", "WireBytes"]
        ),
        .target(
            name: "APNsProtocol",
            dependencies: ["OpenSSLSupport", "WireBytes"]
        ),
        .target(
            // What persists across restarts (keys, tokens, faults): SQLite for one instance, Redis shared by replicas.
            name: "StateStore",
            dependencies: ["APNsProtocol", "CSQLite", "CHiredis"]
        ),
        .target(
            name: "APNsEmulator",
            dependencies: ["APNsProtocol", "H2Transport", "OpenSSLSupport", "StateStore", "CShims", "WireBytes"]
        ),
        .target(
            // The control port (routes, OpenAPI, the extension slot) and the Emulator that starts it with the
            // APNs listeners.
            name: "EmulatorControl",
            dependencies: ["APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport", "StateStore", "WireBytes",
                           "CJansson", "CShims"]
        ),
        .target(
            name: "VirtualDevices",
            dependencies: ["EmulatorControl", "APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport", "WireBytes"]
        ),
        .target(
            name: "FrontDoors",
            dependencies: ["EmulatorControl", "APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport", "VirtualDevices"]
        ),
        .target(
            name: "Dashboard",
            dependencies: ["EmulatorControl", "APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport", "VirtualDevices",
                           "FrontDoors"]
        ),
        .target(
            name: "Scenarios",
            dependencies: ["CYAML", "APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport", "VirtualDevices", "EmulatorControl", "StateStore",
                           "FrontDoors", "WireBytes"]
        ),
        .target(
            name: "EmulatorTesting",
            dependencies: ["APNsEmulator", "APNsProtocol", "H2Transport", "OpenSSLSupport", "VirtualDevices", "EmulatorControl", "StateStore"]
        ),
        .target(
            name: "EmulatorCLI",
            dependencies: ["APNsEmulator", "CShims", "APNsProtocol", "H2Transport", "OpenSSLSupport", "Scenarios",
                           "VirtualDevices", "EmulatorControl", "StateStore", "FrontDoors", "Dashboard"]
        ),
        .target(
            // The parsers' fuzz targets (see `make fuzz`); also replayed by the tests.
            name: "FuzzTargets",
            dependencies: ["APNsEmulator", "APNsProtocol", "EmulatorControl", "H2Transport", "Scenarios", "StateStore", "FrontDoors",
                           "VirtualDevices"]
        ),
        .executableTarget(
            name: "apns-emulator-fuzz",
            dependencies: ["FuzzTargets", "CShims"]
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
            name: "WireBytesTests",
            dependencies: ["WireBytes"]
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
                           "VirtualDevices", "EmulatorControl", "StateStore", "FrontDoors"]
        ),
        .testTarget(
            name: "VirtualDevicesTests",
            dependencies: ["SpawnedProcess", "VirtualDevices", "APNsEmulator", "APNsProtocol", "EmulatorTesting", "H2Transport", "EmulatorControl", "StateStore"],
            // Read from the source tree by path (#filePath), not bundled as resources.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "ScenariosTests",
            dependencies: ["Scenarios", "APNsEmulator", "VirtualDevices", "EmulatorTesting", "H2Transport", "EmulatorControl", "StateStore"]
        ),
        .testTarget(
            name: "EmulatorCLITests",
            dependencies: ["SpawnedProcess", "EmulatorCLI", "APNsEmulator", "EmulatorTesting", "H2Transport", "OpenSSLSupport", "EmulatorControl", "StateStore"]
        ),
        .testTarget(
            // Builds a throwaway package that depends on a tagged copy of this one and uses EmulatorTesting; it
            // runs git and swift as child processes and imports none of the package's other modules.
            name: "EmulatorTestingTests",
            dependencies: ["SpawnedProcess"]
        ),
        .testTarget(
            name: "FrontDoorsTests",
            dependencies: ["FrontDoors", "EmulatorControl", "VirtualDevices", "APNsEmulator", "APNsProtocol", "OpenSSLSupport",
                           "H2Transport", "SpawnedProcess"]
        ),
        .testTarget(
            name: "FuzzTargetsTests",
            dependencies: ["FuzzTargets", "APNsProtocol"],
            // Inputs read by path, not compiled: the seed corpus and every crash `make fuzz` kept.
            exclude: ["Corpus", "Regressions"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
