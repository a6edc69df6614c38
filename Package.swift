// swift-tools-version: 6.0
// The entitlement broker: carries what a user paid for from an app to its widgets and its watch,
// through a shared property-list file, on Linux, with the Swift toolchain alone.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

// Debug builds route SystemShims' system calls through a seam that tests use to force EINTR,
// ENOSPC, EIO and short transfers (`SyscallFaults`); release builds call the C library directly.
let mockableSyscalls: [SwiftSetting] = strict + [.define("ENABLE_MOCKING", .when(configuration: .debug))]

// The tools that ship to a device link the Swift runtime statically in release builds: a
// long-lived daemon then maps only the parts of the standard library and FoundationEssentials it
// uses (a smaller resident set for a process that runs for days), and a one-shot renderer resolves no Swift
// libraries at start-up. FoundationEssentials' static archive needs its two support archives
// named. Debug builds and the test tools stay dynamic, which links faster.
// `--no-export-dynamic` undoes the toolchain's `-export-dynamic` for a static standard library
// (its static-stdlib-args.lnk), which put every public symbol of the package's own modules
// (~3,900 in the renderer) in the dynamic symbol table, where no other object looks them up: the
// runtime's start-up `dladdr` (finding its own path for the backtracer) scanned them all, ~130 K
// instructions of every start. The file's own symbol table (`.symtab`) keeps every name.
let shippedTool: [LinkerSetting] = [
    .unsafeFlags(
        ["-static-stdlib", "-l_FoundationCollections", "-l_FoundationCShims", "-Xlinker", "--no-export-dynamic"],
        .when(platforms: [.linux], configuration: .release)),
]

let package = Package(
    name: "EntitlementBroker",
    // Linux is the platform. The pure modules (PropertyList, StoreKitFormats, Entitlements,
    // Cryptography, SignedData, WidgetTimeline, WatchExtension) also build on macOS 15, where
    // they import Foundation; every module that touches the kernel imports Glibc and builds on
    // Linux only.
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "StoreKitFormats", targets: ["StoreKitFormats"]),
        .library(name: "Entitlements", targets: ["Entitlements"]),
        // The snapshot's and the defaults' values are property lists (`EntitlementSnapshot.propertyList`).
        .library(name: "PropertyList", targets: ["PropertyList"]),
        .library(name: "SharedDefaults", targets: ["SharedDefaults"]),
        .library(name: "EntitlementDefaults", targets: ["EntitlementDefaults"]),
        .library(name: "FileWatch", targets: ["FileWatch"]),
        .library(name: "WidgetTimeline", targets: ["WidgetTimeline"]),
        .library(name: "WatchExtension", targets: ["WatchExtension"]),
        .library(name: "Broker", targets: ["Broker"]),
        .library(name: "Cryptography", targets: ["Cryptography"]),
        .library(name: "SignedData", targets: ["SignedData"]),
        .executable(name: "entitlementd", targets: ["entitlementd"]),
        .executable(name: "entitlementctl", targets: ["entitlementctl"]),
        .executable(name: "widget-renderer", targets: ["widget-renderer"]),
        .executable(name: "entitlement-demo", targets: ["entitlement-demo"]),
    ],
    targets: [
        // The proleptic Gregorian calendar in whole days from 1970: the one date arithmetic under
        // every date text the package reads or writes (property lists, ISO 8601, X.509 validity).
        .target(name: "CivilTime", swiftSettings: strict),
        // Pure values: property-list values and their codecs. No file I/O.
        .target(name: "PropertyList", dependencies: ["CivilTime"], swiftSettings: strict),
        // The App Store's shapes, as pure values: JSON reading, transactions, renewal info,
        // app transactions, grants, the signed payloads that carry them and `.storekit` files.
        .target(name: "StoreKitFormats", dependencies: ["CivilTime", "Cryptography", "SignedData"], swiftSettings: strict),
        // What a user may use, as pure values: catalog, facts, the engine, the snapshot and its
        // schema, the feature gate and the paywall. Time is passed in.
        .target(name: "Entitlements", dependencies: ["StoreKitFormats", "CivilTime", "PropertyList", "Cryptography", "SignedData"], swiftSettings: strict),
        // The primitives: SHA-2, P-256 / P-384 ECDSA verification with its two signature
        // encodings, and the companion link's HMAC-SHA256, HKDF-SHA256 and ChaCha20-Poly1305.
        // Pure values, no I/O.
        .target(name: "Cryptography", swiftSettings: strict),
        // What is believed only once verified: DER, X.509 certificates, JWS and its chains to
        // pinned roots, on the primitives. Pure values, no I/O.
        .target(name: "SignedData", dependencies: ["Cryptography", "CivilTime"], swiftSettings: strict),
        // The companion link's pure parts: frames on the wire, the handshake that proves the
        // pairing key, and the sealed session with its per-direction counters. No I/O.
        .target(name: "CompanionLink", dependencies: ["Cryptography"], swiftSettings: strict),
        // Typed wrappers over Glibc: descriptors, errno, locks, atomic replace. Package-internal API.
        .target(name: "SystemShims", swiftSettings: mockableSyscalls),
        // The App Group UserDefaults stand-in: one property-list file per suite.
        .target(name: "SharedDefaults", dependencies: ["PropertyList", "SystemShims"], swiftSettings: strict),
        // What entitlements keep in the App Group store: the container's layout, the snapshot's
        // reader and publisher, launch-time preferences and paywall analytics, on top of SharedDefaults.
        .target(name: "EntitlementDefaults", dependencies: ["SharedDefaults", "StoreKitFormats", "Entitlements", "PropertyList", "SystemShims"], swiftSettings: strict),
        // inotify on a directory, filtered by name, as an AsyncSequence.
        .target(name: "FileWatch", dependencies: ["SystemShims"], swiftSettings: strict),
        // The service loop (signals, directory changes and a deadline; blocking work on its own
        // thread; graceful shutdown with a deadline), signals as an AsyncSequence, child processes.
        .target(name: "ServiceRuntime", dependencies: ["SystemShims", "FileWatch"], swiftSettings: strict),
        // The daemon's library: lock, inbox, journal, publish, transition timers.
        .target(name: "Broker", dependencies: ["StoreKitFormats", "Entitlements", "Cryptography", "SignedData", "CompanionLink", "SharedDefaults", "EntitlementDefaults", "SystemShims", "FileWatch", "ServiceRuntime", "CLISupport"], swiftSettings: strict),
        // WidgetKit-shaped provider, entries, families and text rendering.
        .target(name: "WidgetTimeline", dependencies: ["CivilTime", "StoreKitFormats", "Entitlements", "PropertyList"], swiftSettings: strict),
        // Watch app-launch gate and complications.
        .target(name: "WatchExtension", dependencies: ["StoreKitFormats", "Entitlements", "WidgetTimeline"], swiftSettings: strict),
        // A small hand-written argument parser, errors and exit codes.
        .target(name: "CLISupport", dependencies: ["SystemShims"], swiftSettings: strict),
        // The tools' own library: what every tool shares (--container, --group and --catalog
        // with their defaults, catalog loading, --format, the terminal's charset and zone, the
        // one-shot snapshot read, how a tool's process runs its command) and widget-renderer's
        // command. It links no Broker, so the renderer's one-shot start relocates none of it.
        .target(
            name: "EntitlementTools",
            dependencies: [
                "CLISupport", "StoreKitFormats", "Entitlements", "EntitlementDefaults", "SharedDefaults", "ServiceRuntime", "WidgetTimeline",
                "WatchExtension", "SystemShims",
            ],
            swiftSettings: strict
        ),
        // The commands that run on the daemon's library: entitlementd's and entitlementctl's.
        .target(
            name: "BrokerTools",
            dependencies: [
                "EntitlementTools", "CLISupport", "StoreKitFormats", "Entitlements", "EntitlementDefaults", "SharedDefaults", "ServiceRuntime", "Broker",
                "WidgetTimeline", "SystemShims",
            ],
            swiftSettings: strict
        ),
        // The demo, and the multi-call entry that runs any tool from the demo's binary: apart, so
        // the shipped tools link none of its code (SwiftPM links every object of a dependency).
        .target(
            name: "DemoTools",
            dependencies: [
                "BrokerTools", "EntitlementTools", "CLISupport", "StoreKitFormats", "Entitlements", "EntitlementDefaults", "SharedDefaults", "ServiceRuntime",
                "Broker", "WidgetTimeline", "SystemShims",
            ],
            swiftSettings: strict
        ),
        // The executables are one line each.
        .executableTarget(name: "entitlementd", dependencies: ["BrokerTools", "EntitlementTools"], swiftSettings: strict, linkerSettings: shippedTool),
        .executableTarget(name: "entitlementctl", dependencies: ["BrokerTools", "EntitlementTools"], swiftSettings: strict, linkerSettings: shippedTool),
        .executableTarget(name: "widget-renderer", dependencies: ["EntitlementTools"], swiftSettings: strict, linkerSettings: shippedTool),
        .executableTarget(name: "entitlement-demo", dependencies: ["DemoTools"], swiftSettings: strict),

        // Test helpers: temporary directories, running built tools, waiting for conditions.
        .target(name: "TestSupport", dependencies: ["SystemShims", "ServiceRuntime"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "PropertyListTests", dependencies: ["PropertyList", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "JWSVerificationTests", dependencies: ["Cryptography", "SignedData", "StoreKitFormats", "Entitlements", "Broker", "SharedDefaults", "EntitlementDefaults", "ServiceRuntime", "TestSupport"], exclude: ["Vectors"], swiftSettings: strict),
        .testTarget(name: "EntitlementModelTests", dependencies: ["Entitlements", "StoreKitFormats", "EntitlementDefaults", "PropertyList", "Cryptography", "TestSupport"], swiftSettings: strict),
        // The generic store, and what entitlements keep in it (EntitlementDefaults).
        .testTarget(name: "SharedDefaultsTests", dependencies: ["SharedDefaults", "EntitlementDefaults", "SystemShims", "PropertyList", "StoreKitFormats", "Entitlements", "TestSupport"], swiftSettings: mockableSyscalls),
        // The system-call layer itself: pipes, processes, signals, whole writes, through the seam.
        .testTarget(name: "SystemShimsTests", dependencies: ["SystemShims", "TestSupport"], swiftSettings: mockableSyscalls),
        .testTarget(name: "FileWatchTests", dependencies: ["FileWatch", "SystemShims", "TestSupport"], swiftSettings: mockableSyscalls),
        .testTarget(
            name: "BrokerTests",
            dependencies: ["Broker", "StoreKitFormats", "Entitlements", "SharedDefaults", "EntitlementDefaults", "SystemShims", "ServiceRuntime", "TestSupport"],
            exclude: ["Journals"], swiftSettings: mockableSyscalls),
        .testTarget(
            name: "WidgetTimelineTests", dependencies: ["WidgetTimeline", "WatchExtension", "StoreKitFormats", "Entitlements"], exclude: ["Golden"],
            swiftSettings: strict),
        .testTarget(
            name: "SignedDataTests", dependencies: ["Cryptography", "SignedData", "TestSupport"], exclude: ["Vectors"], swiftSettings: strict),
        .testTarget(name: "CompanionLinkTests", dependencies: ["CompanionLink", "Cryptography", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ServiceRuntimeTests", dependencies: ["ServiceRuntime", "SystemShims", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "CLISupportTests", dependencies: ["CLISupport"], swiftSettings: strict),
        // Where the tools look by default, and how they write for a terminal.
        .testTarget(
            name: "EntitlementToolsTests", dependencies: ["EntitlementTools", "DemoTools", "CLISupport", "WidgetTimeline", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["TestSupport", "StoreKitFormats", "Entitlements", "SharedDefaults", "EntitlementDefaults", "PropertyList", "SystemShims", "ServiceRuntime", "Broker", "CompanionLink", "Cryptography"],
            exclude: ["Golden", "AppleModels", "Grants"], swiftSettings: strict
        ),
        // The hostile-input corpus (Tests/Corpus) through the real tools, the decoder fixes it
        // led to, and the systemd notify protocol against a socket the test owns.
        .testTarget(
            name: "HostileInputTests",
            dependencies: ["TestSupport", "StoreKitFormats", "Entitlements", "PropertyList", "SharedDefaults", "EntitlementDefaults", "Broker", "ServiceRuntime"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
