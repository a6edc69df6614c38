import Entitlements
import Foundation
import PropertyList
import EntitlementDefaults
import SharedDefaults
import Testing
import TestSupport

/// The catalog's premium toggles (the sample catalog declares `syncEnabled`, needing `sync`, on
/// by default) are resolved once at launch from the snapshot cached in the shared file, and a
/// running process keeps its mode until it is restarted.
@Suite(.timeLimit(.minutes(1))) struct LaunchPreferencesTests {
    static let now = SampleCatalog.date("2025-01-15T00:00:00Z")
    static let subscriber = [SampleCatalog.subscription(id: "s", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")]
    static let key = "syncEnabled"
    static let lapsed = [SampleCatalog.subscription(id: "s", purchased: "2024-11-01T00:00:00Z", expires: "2024-12-01T00:00:00Z")]

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var preference: PropertyListValue?
        var lines: [String]?
        var expected: LaunchMode
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "premium, never touched the toggle (on by default)", preference: nil, lines: subscriber, expected: .on),
        Row(name: "premium, toggle on", preference: .boolean(true), lines: subscriber, expected: .on),
        Row(name: "premium, toggle off", preference: .boolean(false), lines: subscriber, expected: .off(.preferenceOff)),
        Row(name: "free user, toggle on", preference: .boolean(true), lines: [], expected: .off(.premiumRequired(.notEntitled))),
        Row(name: "lapsed subscriber, toggle on", preference: .boolean(true), lines: lapsed, expected: .off(.premiumRequired(.expired))),
        Row(name: "no snapshot published, toggle on", preference: .boolean(true), lines: nil, expected: .off(.premiumRequired(.noSnapshot))),
        Row(name: "premium, toggle stored as string \"no\"", preference: .string("no"), lines: subscriber, expected: .off(.preferenceOff)),
    ]

    @Test(arguments: rows)
    func resolvesFromPreferenceAndCachedSnapshot(_ row: Row) throws {
        try withTemporaryDirectory { container in
            let catalog = try SampleCatalog.load()
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            if let preference = row.preference { try defaults.set(preference, forKey: Self.key) }
            if let lines = row.lines { try defaults.publish(try SampleCatalog.snapshot(lines, now: Self.now)) }
            let launched = SharedDefaults(suiteName: Fixture.suite, container: container)
            #expect(LaunchPreferences.resolve(Self.key, defaults: launched, catalog: catalog, wallClock: Self.now) == row.expected)
        }
    }

    @Test func runningProcessKeepsItsModeUntilRestarted() throws {
        try withTemporaryDirectory { container in
            let catalog = try SampleCatalog.load()
            let settings = SharedDefaults(suiteName: Fixture.suite, container: container)
            try settings.publish(try SampleCatalog.snapshot(Self.subscriber, now: Self.now))

            // "Process A" launches: sync on.
            let processADefaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            let processA = LaunchPreferences(defaults: processADefaults, catalog: catalog, wallClock: Self.now)
            #expect(processA.mode(Self.key) == .on)

            // The user turns sync off from Settings (another instance, as another process would).
            try LaunchPreferences.set(Self.key, false, in: settings)
            #expect(!LaunchPreferences.value(Self.key, in: processADefaults, catalog: catalog), "process A's defaults see the new value")
            #expect(processA.mode(Self.key) == .on, "but the running process keeps the mode it launched with")
            #expect(processA.needsRestart(defaults: processADefaults, catalog: catalog, wallClock: Self.now))

            // "Process B" launches afterwards: local only.
            let processB = LaunchPreferences(
                defaults: SharedDefaults(suiteName: Fixture.suite, container: container), catalog: catalog, wallClock: Self.now)
            #expect(processB.mode(Self.key) == .off(.preferenceOff))
            #expect(!processB.needsRestart(defaults: processADefaults, catalog: catalog, wallClock: Self.now))
        }
    }

    /// Never orphan data: losing premium changes the mode, never the stored choice.
    @Test func lapseKeepsThePreferenceAndRenewalRestoresSync() throws {
        try withTemporaryDirectory { container in
            let catalog = try SampleCatalog.load()
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            try LaunchPreferences.set(Self.key, true, in: defaults)
            try defaults.publish(try SampleCatalog.snapshot(Self.subscriber, now: Self.now, generation: 1))
            #expect(LaunchPreferences.resolve(Self.key, defaults: defaults, catalog: catalog, wallClock: Self.now) == .on)

            // Past the expiry, with no new publish: the cached snapshot's own expiry ends premium.
            let afterExpiry = SampleCatalog.date("2025-02-02T00:00:00Z")
            let before = try #require(FileManager.default.contents(atPath: defaults.path))
            #expect(LaunchPreferences.resolve(Self.key, defaults: defaults, catalog: catalog, wallClock: afterExpiry) == .off(.premiumRequired(.expired)))
            #expect(FileManager.default.contents(atPath: defaults.path) == before, "resolving writes nothing")
            #expect(LaunchPreferences.value(Self.key, in: defaults, catalog: catalog), "the user's choice survives the lapse")

            // Renewed: the next launch syncs again without the user touching anything.
            let renewed = Self.subscriber + [SampleCatalog.subscription(id: "s2", purchased: "2025-02-01T00:00:00Z", expires: "2025-03-01T00:00:00Z")]
            try defaults.publish(try SampleCatalog.snapshot(renewed, now: afterExpiry, generation: 2))
            #expect(LaunchPreferences.resolve(Self.key, defaults: defaults, catalog: catalog, wallClock: afterExpiry) == .on)
        }
    }

    @Test func modeDescriptionsSayWhy() {
        #expect(LaunchMode.on.description == "on")
        #expect(LaunchMode.off(.preferenceOff).description == "off (turned off)")
        #expect(LaunchMode.off(.premiumRequired(.expired)).description == "off (needs premium: expired)")
        #expect(LaunchMode.on.isOn && !LaunchMode.off(.preferenceOff).isOn)
    }

    /// Nothing is built in: a catalog without the declaration has no such preference, and
    /// another catalog's key, feature and default are the ones resolved.
    @Test func theCatalogDeclaresEveryPreference() throws {
        try withTemporaryDirectory { container in
            var catalog = try SampleCatalog.load()
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            try defaults.publish(try SampleCatalog.snapshot(Self.subscriber, now: Self.now))
            try defaults.set(true, forKey: Self.key)
            catalog.preferences = [:]
            #expect(LaunchPreferences(defaults: defaults, catalog: catalog, wallClock: Self.now).modes.isEmpty)
            #expect(LaunchPreferences.resolve(Self.key, defaults: defaults, catalog: catalog, wallClock: Self.now) == .off(.undeclared))
            #expect(!LaunchPreferences.value(Self.key, in: defaults, catalog: catalog))

            catalog.preferences = ["offlineHabits": PreferenceDeclaration(feature: "aiCoach", defaultValue: false)]
            let launch = LaunchPreferences(defaults: defaults, catalog: catalog, wallClock: Self.now)
            #expect(launch.modes == ["offlineHabits": .off(.preferenceOff)], "off by default")
            try LaunchPreferences.set("offlineHabits", true, in: defaults)
            #expect(LaunchPreferences.resolve(defaults: defaults, catalog: catalog, wallClock: Self.now) == ["offlineHabits": .on])
        }
    }
}
