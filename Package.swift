// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "AuthPhone",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "authphone", targets: ["authphone"])
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        // already in the graph through Hummingbird; the server and the load generator name HTTP fields with it
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // already in the graph through async-http-client; a privacyIDEA its user accepted with `sslverify=0` is reached without certificate checks
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // already in the graph through async-http-client; HMAC-SHA1 is needed for RFC 4226's HOTP, RSA
        // (`_CryptoExtras`, `_RSA` in 3.x and 4.x alike) for the FCM senders' service-account keys
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        // already in the graph through async-http-client; the local certificate authority of `serve --tls`
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        // already in the graph through Hummingbird; metrics, their Prometheus text, and options read
        // from flags, environment and a JSON or YAML file
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: ["JSON", "YAML"]),
        // the stores' second engine: several instances sharing one PostgreSQL
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    ],
    targets: [
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        // An uploaded QR picture: decoded to grey levels by libpng or libjpeg-turbo, scanned by libzbar.
        .systemLibrary(name: "CZbar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .target(name: "SodiumKit", dependencies: ["CSodium"]),
        .target(name: "OutOfBand", dependencies: ["StrictJSON", "WireJSON"]),
        .target(name: "AuthFlow", dependencies: ["SodiumKit"]),
        // One JSON dialect for every party: Foundation's coders set alike, and a faster writer of the same bytes.
        .target(name: "WireJSON"),
        .target(
            name: "BackendAPI",
            dependencies: [
                "WireJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .target(name: "Broadcast"),
        .target(name: "StrictJSON"),
        // The export file's shape, sealed with a passphrase; the stores map their rows to it.
        .target(name: "StateExport", dependencies: ["SodiumKit", "StrictJSON"]),
        // Every part's store on the engine chosen at start: SQLite through GRDB, or PostgreSQL through postgres-nio.
        .target(
            name: "Storage",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]),
        .target(name: "Retry"),
        // Work that holds a thread for long, on threads of its own with a bound per kind.
        .target(name: "BlockingWork", dependencies: [.product(name: "NIOPosix", package: "swift-nio")]),
        .target(name: "Identifiers"),
        .target(name: "OTP", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "Faults", dependencies: ["Broadcast", "Identifiers"]),
        // privacyIDEA's push token protocol, from its side's sources: what is signed and how, pure.
        .target(
            name: "PrivacyIDEA",
            dependencies: [
                "OTP", "WireJSON", .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .target(name: "ProcessFigures"),
        // `serve --tls`: a certificate authority of its own and the server certificates it issues, pure.
        .target(
            name: "LocalAuthority",
            dependencies: [
                .product(name: "X509", package: "swift-certificates"), .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "Phone",
            dependencies: [
                "AuthFlow", "BlockingWork", "BackendAPI", "Broadcast", "Faults", "Identifiers", "OTP", "OutOfBand", "PrivacyIDEA", "Retry",
                "SodiumKit",
                "Storage", "StateExport", "WireJSON", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]),
        .target(
            name: "Backend",
            dependencies: [
                "BackendAPI", "Broadcast", "Faults", "Identifiers", "OTP", "OutOfBand", "Retry", "SodiumKit", "CQRencode", "Storage",
                "StateExport", .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        // An SMS gateway senders reach by a generic HTTP door or Twilio's Messages API (docs/sms.md).
        .target(
            name: "SMSGateway",
            dependencies: ["Faults", "Identifiers", "SodiumKit", "Storage", .product(name: "GRDB", package: "GRDB.swift")]),
        .target(
            name: "PushService",
            dependencies: [
                "Broadcast", "Faults", "Identifiers", "OutOfBand", "StrictJSON", "Storage", "WireJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]),
        .target(
            name: "Timeline",
            dependencies: [
                "BackendAPI", "Broadcast", "Storage", "StrictJSON", "WireJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]),
        .target(
            name: "WebApp",
            dependencies: [
                "Phone", "Backend", "BackendAPI", "BlockingWork", "Broadcast", "PushService", "Timeline", "AuthFlow", "Faults", "OutOfBand",
                "Identifiers", "LocalAuthority", "PrivacyIDEA", "SMSGateway",
                "ProcessFigures", "Retry", "Scenarios", "SodiumKit", "Storage", "StateExport", "StrictJSON", "WireJSON", "CZbar", "CPNG",
                "CTurboJPEG",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        // Drives a running server over its API and WebSockets, as scripts and pages do.
        .target(
            name: "LoadGenerator",
            dependencies: [
                "BackendAPI", "ProcessFigures", "Retry", "WireJSON",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]),
        // A walk recorded on the stage as a scenario: its schema, its pytest file, its replay.
        .target(name: "Scenarios", dependencies: ["LoadGenerator", "WireJSON", .product(name: "NIOHTTP1", package: "swift-nio")]),
        .executableTarget(
            name: "authphone",
            dependencies: [
                "WebApp", "Backend", "BackendAPI", "LoadGenerator", "OutOfBand", "PushService", "Scenarios", "SodiumKit", "StateExport", "Storage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        // Test doubles at the true boundaries (the clock, waiting) and a device that speaks the wire
        // to a backend without HTTP, shared by the test targets and the benchmarks.
        .target(
            name: "TestDoubles",
            dependencies: [
                "Backend", "BackendAPI", "OutOfBand", "SodiumKit", "Storage", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"), .product(name: "Logging", package: "swift-log"),
            ], path: "Tests/TestDoubles"),
        // Micro benchmarks of the hot paths; `make bench` runs them in release.
        .executableTarget(
            name: "authphone-bench",
            dependencies: [
                "AuthFlow", "Backend", "BackendAPI", "OTP", "OutOfBand", "ProcessFigures", "Retry", "SodiumKit", "Storage", "TestDoubles",
                "WireJSON", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(name: "SodiumKitTests", dependencies: ["SodiumKit"]),
        .testTarget(name: "StateExportTests", dependencies: ["StateExport", "SodiumKit"]),
        .testTarget(name: "OutOfBandTests", dependencies: ["OutOfBand", "TestDoubles"]),
        .testTarget(
            name: "PushServiceTests",
            dependencies: ["PushService", "Faults", "OutOfBand", "TestDoubles", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "AuthFlowTests", dependencies: ["AuthFlow"]),
        .testTarget(name: "ScenariosTests", dependencies: ["Scenarios", "AuthFlow", "WireJSON"]),
        .testTarget(
            name: "BackendTests",
            dependencies: [
                "Backend", "BackendAPI", "OTP", "OutOfBand", "SodiumKit", "StateExport", "TestDoubles",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "OTPTests", dependencies: ["OTP"]),
        .testTarget(name: "PrivacyIDEATests", dependencies: ["PrivacyIDEA", .product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "LocalAuthorityTests", dependencies: ["LocalAuthority", .product(name: "X509", package: "swift-certificates")]),
        // The phone against a scripted backend (its `BackendClient` double), everything else real.
        .testTarget(
            name: "PhoneTests",
            dependencies: [
                "Phone", "AuthFlow", "BackendAPI", "BlockingWork", "OTP", "OutOfBand", "Retry", "SodiumKit", "Storage", "TestDoubles",
                "WireJSON",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "TestDoubles", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "TimelineTests", dependencies: ["Timeline", "BackendAPI", "TestDoubles"]),
        .testTarget(name: "StrictJSONTests", dependencies: ["StrictJSON"]),
        .testTarget(name: "WireJSONTests", dependencies: ["WireJSON", "TestDoubles"]),
        .testTarget(name: "IdentifiersTests", dependencies: ["Identifiers"]),
        .testTarget(name: "SMSGatewayTests", dependencies: ["SMSGateway", "Identifiers", "Faults", "TestDoubles"]),
        .testTarget(name: "RetryTests", dependencies: ["Retry", "TestDoubles"]),
        .testTarget(name: "BlockingWorkTests", dependencies: ["BlockingWork"]),
        .testTarget(name: "FaultsTests", dependencies: ["Faults", "TestDoubles"]),
        .testTarget(
            name: "WebAppTests",
            dependencies: [
                "BlockingWork", "WebApp", "Phone", "AuthFlow", "Backend", "BackendAPI", "Faults", "LocalAuthority", "OutOfBand", "PushService",
                "Retry", "SodiumKit",
                "StateExport", "TestDoubles", "Timeline", "WireJSON",
                "CPNG",  // writes the PNG pictures the QR picture tests upload
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]),
    ]
)
