import EntitlementModel
import Foundation
import PropertyList
import EntitlementDefaults
import SharedDefaults
import Testing
import TestSupport

/// The sync toggle is premium-only, resolved once at launch from the snapshot cached in
/// the shared file, and a running process keeps its mode until it is restarted.
@Suite(.timeLimit(.minutes(1))) struct LaunchPreferencesTests {
    static let now = SampleCatalog.date("2025-01-15T00:00:00Z")
    static let subscriber = [SampleCatalog.subscription(id: "s", purchased: "2025-01-01T00:00:00Z", expires: "2025-02-01T00:00:00Z")]
    static let lapsed = [SampleCatalog.subscription(id: "s", purchased: "2024-11-01T00:00:00Z", expires: "2024-12-01T00:00:00Z")]

    struct Row: Sendable, CustomStringConvertible {
        var name: String
        var preference: PropertyListValue?
        var lines: [String]?
        var expected: LaunchMode
        var description: String { name }
    }

    static let rows: [Row] = [
        Row(name: "premium, never touched the toggle (on by default)", preference: nil, lines: subscriber, expected: .syncOn),
        Row(name: "premium, toggle on", preference: .boolean(true), lines: subscriber, expected: .syncOn),
        Row(name: "premium, toggle off", preference: .boolean(false), lines: subscriber, expected: .localOnly(.preferenceOff)),
        Row(name: "free user, toggle on", preference: .boolean(true), lines: [], expected: .localOnly(.premiumRequired(.notEntitled))),
        Row(name: "lapsed subscriber, toggle on", preference: .boolean(true), lines: lapsed, expected: .localOnly(.premiumRequired(.expired))),
        Row(name: "no snapshot published, toggle on", preference: .boolean(true), lines: nil, expected: .localOnly(.premiumRequired(.noSnapshot))),
        Row(name: "premium, toggle stored as string \"no\"", preference: .string("no"), lines: subscriber, expected: .localOnly(.preferenceOff)),
    ]

    @Test(arguments: rows)
    func resolvesFromPreferenceAndCachedSnapshot(_ row: Row) throws {
        try withTemporaryDirectory { container in
            let gate = try SampleCatalog.load().featureGate
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            if let preference = row.preference { try defaults.set(preference, forKey: LaunchPreferences.syncEnabledKey) }
            if let lines = row.lines { try defaults.publish(try SampleCatalog.snapshot(lines, now: Self.now)) }
            let launched = SharedDefaults(suiteName: Fixture.suite, container: container)
            #expect(LaunchPreferences.resolve(defaults: launched, gate: gate, wallClock: Self.now) == row.expected)
        }
    }

    @Test func runningProcessKeepsItsModeUntilRestarted() throws {
        try withTemporaryDirectory { container in
            let gate = try SampleCatalog.load().featureGate
            let settings = SharedDefaults(suiteName: Fixture.suite, container: container)
            try settings.publish(try SampleCatalog.snapshot(Self.subscriber, now: Self.now))

            // "Process A" launches: sync on.
            let processADefaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            let processA = LaunchPreferences(defaults: processADefaults, gate: gate, wallClock: Self.now)
            #expect(processA.mode == .syncOn)

            // The user turns sync off from Settings (another instance, as another process would).
            try LaunchPreferences.setSyncEnabled(false, in: settings)
            #expect(!LaunchPreferences.syncPreference(in: processADefaults), "process A's defaults see the new value")
            #expect(processA.mode == .syncOn, "but the running process keeps the mode it launched with")
            #expect(processA.needsRestart(defaults: processADefaults, gate: gate, wallClock: Self.now))

            // "Process B" launches afterwards: local only.
            let processB = LaunchPreferences(
                defaults: SharedDefaults(suiteName: Fixture.suite, container: container), gate: gate, wallClock: Self.now)
            #expect(processB.mode == .localOnly(.preferenceOff))
            #expect(!processB.needsRestart(defaults: processADefaults, gate: gate, wallClock: Self.now))
        }
    }

    /// Never orphan data: losing premium changes the mode, never the stored choice.
    @Test func lapseKeepsThePreferenceAndRenewalRestoresSync() throws {
        try withTemporaryDirectory { container in
            let gate = try SampleCatalog.load().featureGate
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            try LaunchPreferences.setSyncEnabled(true, in: defaults)
            try defaults.publish(try SampleCatalog.snapshot(Self.subscriber, now: Self.now, generation: 1))
            #expect(LaunchPreferences.resolve(defaults: defaults, gate: gate, wallClock: Self.now) == .syncOn)

            // Past the expiry, with no new publish: the cached snapshot's own expiry ends premium.
            let afterExpiry = SampleCatalog.date("2025-02-02T00:00:00Z")
            let before = try #require(FileManager.default.contents(atPath: defaults.path))
            #expect(LaunchPreferences.resolve(defaults: defaults, gate: gate, wallClock: afterExpiry) == .localOnly(.premiumRequired(.expired)))
            #expect(FileManager.default.contents(atPath: defaults.path) == before, "resolving writes nothing")
            #expect(LaunchPreferences.syncPreference(in: defaults), "the user's choice survives the lapse")

            // Renewed: the next launch syncs again without the user touching anything.
            let renewed = Self.subscriber + [SampleCatalog.subscription(id: "s2", purchased: "2025-02-01T00:00:00Z", expires: "2025-03-01T00:00:00Z")]
            try defaults.publish(try SampleCatalog.snapshot(renewed, now: afterExpiry, generation: 2))
            #expect(LaunchPreferences.resolve(defaults: defaults, gate: gate, wallClock: afterExpiry) == .syncOn)
        }
    }

    @Test func modeDescriptionsSayWhy() {
        #expect(LaunchMode.syncOn.description == "sync on")
        #expect(LaunchMode.localOnly(.preferenceOff).description == "local only (sync turned off)")
        #expect(LaunchMode.localOnly(.premiumRequired(.expired)).description == "local only (sync needs premium: expired)")
        #expect(LaunchMode.syncOn.syncActive && !LaunchMode.localOnly(.preferenceOff).syncActive)
    }
}
