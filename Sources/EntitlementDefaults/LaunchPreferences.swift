import EntitlementModel
import FoundationEssentials
import PropertyList
import SharedDefaults

/// A premium-only preference: the sync toggle, stored in the shared defaults under
/// ``syncEnabledKey`` and resolved **once**, when a process starts, from the snapshot cached in
/// the same shared file. No service is started and nothing is written while resolving.
///
/// A process creates one `LaunchPreferences` at start-up and keeps its ``mode`` until it exits:
/// toggling the preference, buying or losing premium takes effect on the next launch
/// (``needsRestart(defaults:gate:wallClock:)`` tells the UI to say so). The stored preference is
/// never cleared when premium lapses, so a renewed subscriber finds sync as they left it.
public struct LaunchPreferences: Sendable, Hashable {
    /// The shared-defaults key of the user's sync toggle (a boolean).
    public static let syncEnabledKey = "syncEnabled"
    /// The catalog feature that says which entitlement sync needs.
    public static let syncFeature = "sync"
    /// The toggle's value before the user has touched it: on (an opt-out model), so a
    /// new subscriber syncs without a visit to Settings.
    public static let syncEnabledByDefault = true

    /// The mode this process runs in, resolved at init.
    public let mode: LaunchMode

    /// Resolves the launch mode now; call once, at process start.
    public init(defaults: SharedDefaults, gate: FeatureGate, wallClock: Date) {
        mode = Self.resolve(defaults: defaults, gate: gate, wallClock: wallClock)
    }

    /// The mode a process launched now would run in: ``LaunchMode/syncOn`` only when the user's
    /// toggle is on and the gate unlocks ``syncFeature`` from the snapshot in `defaults`.
    ///
    /// Fails closed: a missing or refused shared file, or an unreadable snapshot, count as not
    /// premium. Reads the file (at most once, through `defaults`); writes nothing.
    ///
    /// - Parameters:
    ///   - defaults: the app group's shared defaults, holding the preference and the snapshot.
    ///   - gate: the catalog's feature gate.
    ///   - wallClock: the launching process's clock; raised to the snapshot's
    ///     `EntitlementSnapshot.effectiveNow(wallClock:boot:)` with this boot's clock, so a clock
    ///     wound back cannot bring premium back.
    public static func resolve(defaults: SharedDefaults, gate: FeatureGate, wallClock: Date) -> LaunchMode {
        let contents = defaults.dictionaryRepresentation()
        guard syncPreference(contents[syncEnabledKey]) else { return .localOnly(.preferenceOff) }
        let snapshot = contents[EntitlementSnapshot.defaultsKey].flatMap { try? EntitlementSnapshot(propertyList: $0) }
        let now = snapshot?.effectiveNow(wallClock: wallClock, boot: .current()) ?? wallClock
        switch gate.check(syncFeature, snapshot: snapshot, wallClock: now) {
        case .unlocked: return .syncOn
        case .locked(let paywall): return .localOnly(.premiumRequired(paywall.reason))
        }
    }

    /// The user's stored toggle (``syncEnabledByDefault`` when never set), whatever premium says.
    public static func syncPreference(in defaults: SharedDefaults) -> Bool {
        syncPreference(defaults.object(forKey: syncEnabledKey))
    }

    /// Stores the user's toggle; it takes effect on the next launch.
    ///
    /// - Throws: `SharedDefaultsError` when the shared file cannot be updated.
    public static func setSyncEnabled(_ enabled: Bool, in defaults: SharedDefaults) throws(SharedDefaultsError) {
        try defaults.set(enabled, forKey: syncEnabledKey)
    }

    /// Whether a relaunch now would run in a different mode from ``mode``.
    public func needsRestart(defaults: SharedDefaults, gate: FeatureGate, wallClock: Date) -> Bool {
        Self.resolve(defaults: defaults, gate: gate, wallClock: wallClock) != mode
    }

    /// A stored value as a toggle: booleans as they are, numbers non-zero, strings `true`/`yes`/`1`
    /// (as `SharedDefaults/bool(forKey:)`); absent means ``syncEnabledByDefault``.
    private static func syncPreference(_ value: PropertyListValue?) -> Bool {
        switch value {
        case nil: syncEnabledByDefault
        case .boolean(let value): value
        case .integer(let value): value != 0
        case .real(let value): value != 0
        case .string(let value): ["true", "yes", "1"].contains(value.lowercased())
        default: false
        }
    }
}
