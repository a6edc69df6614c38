// swift-tools-version: 6.0
// The lab beside the entitlement broker: the benchmark (`entitlement-bench`, with its process
// floor) and the stress loops (`entitlement-stress`). A package of its own, so the product builds
// and tests without them; it uses the product as an app would, through its library products and
// its shipped executables. Run from the product's directory:
//
//     swift run --package-path Benchmarks -c release entitlement-bench [--quick] [--format json]
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// The process floor links the Swift runtime as the shipped tools do in release builds (the
// product's Package.swift says why), so a process start is measured against the same runtime.
let shippedTool: [LinkerSetting] = [
    .unsafeFlags(
        ["-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims", "-Xlinker", "--no-export-dynamic"],
        .when(platforms: [.linux], configuration: .release)),
]

// Named, so the product resolves whatever its checkout's directory is called.
let product = "EntitlementBroker"

let package = Package(
    name: "Benchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "entitlement-bench", targets: ["entitlement-bench"]),
        .executable(name: "entitlement-stress", targets: ["entitlement-stress"]),
    ],
    dependencies: [
        .package(name: product, path: ".."),
    ],
    targets: [
        // The benchmark: propagation against the kernel's floor, fan-out, peers and costs. It calls
        // Glibc directly, so its floors are the kernel without the product's SystemShims.
        .target(
            name: "Benchmarks",
            dependencies: [
                .product(name: "StoreKitFormats", package: product), .product(name: "Entitlements", package: product), .product(name: "PropertyList", package: product),
                .product(name: "SharedDefaults", package: product), .product(name: "EntitlementDefaults", package: product),
                .product(name: "FileWatch", package: product), .product(name: "Broker", package: product),
                .product(name: "WidgetTimeline", package: product), .product(name: "Cryptography", package: product), .product(name: "SignedData", package: product),
            ],
            swiftSettings: strict
        ),
        // The executables the benchmark runs are its dependencies, so building it builds them
        // next to it: the product's shipped tools and the process floor.
        .executableTarget(
            name: "entitlement-bench",
            dependencies: [
                "Benchmarks", "entitlement-bench-floor",
                .product(name: "entitlementd", package: product), .product(name: "entitlementctl", package: product),
                .product(name: "widget-renderer", package: product),
            ],
            swiftSettings: strict
        ),
        // The process floor: the shipped tools' runtime (FoundationEssentials, linked as they
        // are), doing nothing.
        .executableTarget(name: "entitlement-bench-floor", swiftSettings: strict, linkerSettings: shippedTool),
        // Tight publish and read loops, with Foundation's UserDefaults as the contrast writer.
        .target(
            name: "StressCommands",
            dependencies: [
                .product(name: "StoreKitFormats", package: product), .product(name: "Entitlements", package: product), .product(name: "PropertyList", package: product),
                .product(name: "SharedDefaults", package: product), .product(name: "EntitlementDefaults", package: product),
            ],
            swiftSettings: strict
        ),
        .executableTarget(name: "entitlement-stress", dependencies: ["StressCommands"], swiftSettings: strict),
        // The benchmark's output contract, run on the built executable with its smallest sizes.
        .testTarget(name: "BenchmarksTests", dependencies: ["entitlement-bench"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
