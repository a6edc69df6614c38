import Entitlements
import FoundationEssentials
import PropertyList
import SharedDefaults

/// The catalog's premium toggles (its `preferences`), each stored in the shared defaults under
/// its key and resolved **once**, when a process starts, from the snapshot cached in the same
/// shared file. No service is started and nothing is written while resolving; nothing about a
/// toggle (its key, its feature, its default) is built in.
///
/// A process creates one `LaunchPreferences` at start-up and keeps its ``modes`` until it exits:
/// toggling a preference, buying or losing premium takes effect on the next launch
/// (``needsRestart(defaults:catalog:wallClock:)`` tells the UI to say so). A stored choice is
/// never cleared when premium lapses, so a renewed subscriber finds it as they left it.
///
/// ```swift
/// // Catalog.json: "preferences": {"syncEnabled": {"feature": "sync", "default": true}}
/// let launch = LaunchPreferences(defaults: defaults, catalog: catalog, wallClock: Date())
/// if launch.mode("syncEnabled").isOn { startCloudSync() }
/// ```
public struct LaunchPreferences: Sendable, Hashable {
    /// Each declared preference's mode for this process, resolved at init.
    public let modes: [String: LaunchMode]

    /// Resolves every declared preference now; call once, at process start.
    public init(defaults: SharedDefaults, catalog: Catalog, wallClock: Date) {
        modes = Self.resolve(defaults: defaults, catalog: catalog, wallClock: wallClock)
    }

    /// The mode `key` runs in for this process; ``LaunchMode/OffReason/undeclared`` for a key the
    /// catalog does not declare.
    public func mode(_ key: String) -> LaunchMode { modes[key] ?? .off(.undeclared) }

    /// The mode a process launched now would run each declared preference in: ``LaunchMode/on``
    /// only when the stored value (else the declared default) is on and the gate unlocks the
    /// declared feature from the snapshot in `defaults`.
    ///
    /// Fails closed: a missing or refused shared file, or an unreadable snapshot, count as not
    /// premium. Reads the file at most once (through `defaults`); writes nothing.
    ///
    /// - Parameters:
    ///   - defaults: the app group's shared defaults, holding the preferences and the snapshot.
    ///   - catalog: declares the preferences and the features they need.
    ///   - wallClock: the launching process's clock; raised to the snapshot's
    ///     `EntitlementSnapshot.effectiveNow(wallClock:boot:)` with this boot's clock, so a clock
    ///     wound back cannot bring premium back.
    public static func resolve(defaults: SharedDefaults, catalog: Catalog, wallClock: Date) -> [String: LaunchMode] {
        let contents = defaults.dictionaryRepresentation()
        let snapshot = contents[EntitlementSnapshot.defaultsKey].flatMap { try? EntitlementSnapshot(propertyList: $0) }
        let now = snapshot?.effectiveNow(wallClock: wallClock, boot: .current()) ?? wallClock
        var modes: [String: LaunchMode] = [:]
        for (key, declared) in catalog.preferences {
            guard value(contents[key], declared: declared) else {
                modes[key] = .off(.preferenceOff)
                continue
            }
            switch catalog.featureGate.check(declared.feature, snapshot: snapshot, wallClock: now) {
            case .unlocked: modes[key] = .on
            case .locked(let paywall): modes[key] = .off(.premiumRequired(paywall.reason))
            }
        }
        return modes
    }

    /// ``resolve(defaults:catalog:wallClock:)`` of one preference.
    public static func resolve(_ key: String, defaults: SharedDefaults, catalog: Catalog, wallClock: Date) -> LaunchMode {
        guard catalog.preferences[key] != nil else { return .off(.undeclared) }
        return resolve(defaults: defaults, catalog: catalog, wallClock: wallClock)[key] ?? .off(.undeclared)
    }

    /// The user's stored choice for `key` (the declared default when never set), whatever premium
    /// says; `false` for a key the catalog does not declare.
    public static func value(_ key: String, in defaults: SharedDefaults, catalog: Catalog) -> Bool {
        guard let declared = catalog.preferences[key] else { return false }
        return value(defaults.object(forKey: key), declared: declared)
    }

    /// Stores the user's choice for `key`; it takes effect on the next launch. The daemon's
    /// publishes keep it (each one rewrites the suite under the same lock, from its current contents).
    ///
    /// - Throws: `SharedDefaultsError` when the shared file cannot be updated.
    public static func set(_ key: String, _ enabled: Bool, in defaults: SharedDefaults) throws(SharedDefaultsError) {
        try defaults.set(enabled, forKey: key)
    }

    /// Whether a relaunch now would run some preference in a different mode from ``modes``.
    public func needsRestart(defaults: SharedDefaults, catalog: Catalog, wallClock: Date) -> Bool {
        Self.resolve(defaults: defaults, catalog: catalog, wallClock: wallClock) != modes
    }

    /// A stored value as a toggle: booleans as they are, numbers non-zero, strings `true`/`yes`/`1`
    /// (as `SharedDefaults/bool(forKey:)`); absent means the declared default.
    private static func value(_ stored: PropertyListValue?, declared: PreferenceDeclaration) -> Bool {
        switch stored {
        case nil: declared.defaultValue
        case .boolean(let value): value
        case .integer(let value): value != 0
        case .real(let value): value != 0
        case .string(let value): ["true", "yes", "1"].contains(value.lowercased())
        default: false
        }
    }
}
