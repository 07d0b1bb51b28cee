// swift-tools-version: 6.1
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

/// Benchmark executables, built only with `HERALD_BENCHMARKS=1`, to keep them out of the test build.
func benchmarks(_ targets: [Target]) -> [Target] {
    Context.environment["HERALD_BENCHMARKS"] == nil ? [] : targets
}

// MARK: - C libraries (each imported by exactly one Swift module)

let cLibraries: [Target] = [
    .systemLibrary(
        name: "CLibPQ",
        pkgConfig: "libpq",
        providers: [.apt(["libpq-dev"])]
    ),
    .systemLibrary(
        name: "CNghttp2",
        pkgConfig: "libnghttp2",
        providers: [.apt(["libnghttp2-dev"])]
    ),
    .systemLibrary(
        name: "COpenSSL",
        pkgConfig: "openssl",
        providers: [.apt(["libssl-dev"])]
    ),
]

// MARK: - Foundation: cryptography, PostgreSQL, domain, local services

let foundationTargets: [Target] = [
    .target(
        name: "PollSupport",
        swiftSettings: strictSettings
    ),
    .target(
        name: "Cryptography",
        dependencies: ["COpenSSL", "PollSupport"],
        swiftSettings: strictSettings
    ),
    .target(
        name: "Postgres",
        dependencies: [
            "CLibPQ",
            "PollSupport",
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: strictSettings
    ),
    .target(
        name: "LocalServices",
        dependencies: [
            "Postgres",
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: strictSettings
    ),
    .target(
        name: "HeraldCore",
        dependencies: [
            "APNsCore",
            "Cryptography",
            "Postgres",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ],
        swiftSettings: strictSettings
    ),
    // The webhook sender: an HTTP client the delivery engine reports to through DeliveryEventSink.
    .target(
        name: "HeraldWebhook",
        dependencies: [
            "Cryptography",
            "HeraldCore",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        swiftSettings: strictSettings
    ),
    .executableTarget(
        name: "herald",
        dependencies: [
            "APNs",
            "APNsCore",
            "APNsMock",
            "HeraldCore",
            "HeraldIngress",
            "HeraldServer",
            "HeraldWebhook",
            "LocalServices",
            "Postgres",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "OTel", package: "swift-otel"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "CryptographyTests",
        dependencies: ["Cryptography"],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "PostgresTests",
        dependencies: ["Postgres", "HeraldTesting"],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "HeraldCoreTests",
        dependencies: [
            "APNs",
            "APNsCore",
            "APNsMock",
            "Cryptography",
            "HeraldCore",
            "HeraldTesting",
            "HeraldWebhook",
            "Postgres",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "HeraldCommandTests",
        dependencies: [
            "APNs", "APNsCore", "APNsMock", "HeraldCore", "herald",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: strictSettings
    ),
]

// MARK: - APNs client and apns-mock

let apnsTargets: [Target] = [
    // Apple's vocabulary as values (payloads, requests, answers, push types): no transport, Foundation only.
    .target(
        name: "APNsCore",
        swiftSettings: strictSettings
    ),
    .target(
        name: "APNs",
        dependencies: [
            "APNsCore",
            "CNghttp2",
            "Cryptography",
            "PollSupport",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ],
        swiftSettings: strictSettings
    ),
    .target(
        name: "APNsMock",
        dependencies: [
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "NIOHPACK", package: "swift-nio-http2"),
        ],
        swiftSettings: strictSettings
    ),
    .executableTarget(
        name: "apns-mock",
        dependencies: [
            "APNsMock",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        swiftSettings: strictSettings
    ),
    .testTarget(
        name: "APNsTests",
        dependencies: [
            "APNs",
            "APNsCore",
            "APNsMock",
            "Cryptography",
            "HeraldTesting",
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "Logging", package: "swift-log"),
        ],
        swiftSettings: strictSettings
    ),
]

// MARK: - HeraldClient: Herald's API for Swift, generated from openapi.yaml on every build

let clientTargets: [Target] = [
    // Generated by swift-openapi-generator from Sources/HeraldClient/openapi.yaml, a link to the document Herald
    // serves, so the contract is compiled in Swift on every build. Generated code is not held to strictSettings.
    .target(
        name: "HeraldClient",
        dependencies: [
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        ],
        plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
    )
]

// MARK: - MailNotifier

let mailNotifierTargets: [Target] =
    [
        // Talks to Herald through the generated client; no server module, so an app can link it.
        .target(
            name: "MailNotifier",
            dependencies: [
                "HeraldClient",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(
                    name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client",
                    condition: .when(platforms: [.linux])),
                // The transport's own client and errors, to fail fast on a refused connection and name it.
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(platforms: [.linux])),
                .product(name: "NIOCore", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(name: "NIOPosix", package: "swift-nio", condition: .when(platforms: [.linux])),
                .product(
                    name: "OpenAPIURLSession", package: "swift-openapi-urlsession",
                    condition: .when(platforms: [.macOS, .iOS, .tvOS, .watchOS, .visionOS])),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "mail-notifier",
            dependencies: [
                "MailNotifier",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "MailNotifierTests",
            dependencies: [
                "HeraldClient", "MailNotifier", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            ],
            swiftSettings: strictSettings
        ),
    ]
    + benchmarks([
        .executableTarget(
            name: "mail-notifier-bench",
            dependencies: ["MailNotifier"],
            path: "Benchmarks/MailNotifierBench",
            swiftSettings: strictSettings
        )
    ])

// MARK: - Test support and end-to-end tests

let testSupportTargets: [Target] = [
    // Starts what tests need (databases, apns-mock, keys, built binaries) and budgets the machine between suites.
    // Linked only into test targets, never into `herald`.
    .target(
        name: "HeraldTesting",
        dependencies: [
            "APNs",
            "APNsCore",
            "APNsMock",
            "Cryptography",
            "HeraldCore",
            "LocalServices",
            "Postgres",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "MetricsTestKit", package: "swift-metrics"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
        ],
        path: "Tests/HeraldTesting",
        swiftSettings: strictSettings
    ),
    // The built binaries as operators run them: serve, worker, dev, migrate, mail-notifier, the dashboard.
    .testTarget(
        name: "EndToEndTests",
        dependencies: [
            "APNs",
            "APNsCore",
            "APNsMock",
            "Cryptography",
            "HeraldCore",
            "HeraldTesting",
            "LocalServices",
            "Postgres",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ],
        swiftSettings: strictSettings
    ),
]

let deliveryBenchmarkTargets: [Target] = benchmarks([
    .executableTarget(
        name: "delivery-bench",
        dependencies: [
            "APNs",
            "APNsCore",
            "APNsMock",
            "Cryptography",
            "HeraldCore",
            "LocalServices",
            "Postgres",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ],
        path: "Benchmarks/DeliveryThroughput",
        swiftSettings: strictSettings
    ),
    // The APNs ingress against the same client sending straight to apns-mock, in one run.
    .executableTarget(
        name: "ingress-bench",
        dependencies: [
            "APNs",
            "APNsCore",
            "APNsMock",
            "Cryptography",
            "HeraldCore",
            "HeraldIngress",
            "LocalServices",
            "Postgres",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Benchmarks/IngressThroughput",
        swiftSettings: strictSettings
    ),
])

// MARK: - Benchmarks

let benchmarkTargets: [Target] = benchmarks([
    .executableTarget(
        name: "postgres-bulk-bench",
        dependencies: [
            "HeraldCore",
            "LocalServices",
            "Postgres",
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Benchmarks/PostgresBulkWrite",
        swiftSettings: strictSettings
    ),
    .executableTarget(
        name: "apns-bench",
        dependencies: [
            "APNs",
            "APNsCore",
            "APNsMock",
            "HeraldCore",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ],
        path: "Benchmarks/APNsThroughput",
        swiftSettings: strictSettings
    ),
])

// MARK: - Gateway API

let gatewayTargets: [Target] =
    [
        .target(
            name: "HeraldServer",
            dependencies: [
                "APNsCore",
                "Cryptography",
                "HeraldCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            // Compiled into the binary, so `herald serve` serves the dashboard wherever it is installed.
            resources: [
                .embedInCode("Dashboard/index.html"), .embedInCode("Dashboard/dashboard.css"),
                .embedInCode("Dashboard/dashboard.js"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HeraldServerTests",
            dependencies: [
                "APNs",
                "APNsCore",
                "Cryptography",
                "HeraldCore",
                "HeraldClient",
                "HeraldServer",
                "HeraldTesting",
                "Postgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: strictSettings,
            // The server glue of the same document, for the test that holds the generated operations to the
            // router's routes; apps that link HeraldClient do not carry it.
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
    ]
    + [
        // Apple's provider API spoken inbound: existing APNs clients send through Herald by changing their host.
        .target(
            name: "HeraldIngress",
            dependencies: [
                "APNsCore",
                "Cryptography",
                "HeraldCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOHPACK", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "HeraldIngressTests",
            dependencies: [
                "APNs",
                "APNsCore",
                "APNsMock",
                "Cryptography",
                "HeraldCore",
                "HeraldIngress",
                "HeraldTesting",
                "Postgres",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
    ]
    + benchmarks([
        .executableTarget(
            name: "gateway-bench",
            dependencies: [
                "Cryptography",
                "HeraldCore",
                "LocalServices",
                "Postgres",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/GatewayAPI",
            exclude: ["register.lua"],
            swiftSettings: strictSettings
        )
    ])

// MARK: - Deployment files (deploy/): parsed and checked, never run

let deployTargets: [Target] = [
    .testTarget(
        name: "DeployTests",
        dependencies: ["HeraldCore", "HeraldTesting", "LocalServices", .product(name: "Yams", package: "Yams")],
        swiftSettings: strictSettings
    )
]

let package = Package(
    name: "Herald",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // OTLP over HTTP only: the gRPC exporter's dependencies would double the build for nothing Herald uses.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: cLibraries + foundationTargets + apnsTargets + clientTargets + mailNotifierTargets + gatewayTargets
        + testSupportTargets + deliveryBenchmarkTargets + deployTargets + benchmarkTargets,
    swiftLanguageModes: [.v6]
)
