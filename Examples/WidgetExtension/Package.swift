// swift-tools-version: 6.0
// A widget extension's side of the entitlement broker: the package an app's widget (or watch) target
// would depend on, shown as a small command-line program so it runs on Linux. It depends on the
// broker package by path; an app would use `.package(url: ..., from: ...)` instead.
import PackageDescription

let package = Package(
    name: "WidgetExtension",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "EntitlementBroker", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "GekoWidget",
            dependencies: [
                .product(name: "Entitlements", package: "EntitlementBroker"),
                .product(name: "EntitlementDefaults", package: "EntitlementBroker"),
                .product(name: "FileWatch", package: "EntitlementBroker"),
                .product(name: "WidgetTimeline", package: "EntitlementBroker"),
                .product(name: "WatchExtension", package: "EntitlementBroker"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
