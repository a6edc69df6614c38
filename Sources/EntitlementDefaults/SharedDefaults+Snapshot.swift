import Entitlements
import PropertyList
import SharedDefaults
import SystemShims

extension SharedDefaults {
    /// Writes `snapshot` under `EntitlementSnapshot/defaultsKey` in one locked update, leaving
    /// every other key in the suite as it is.
    ///
    /// The caller is responsible for `generation` increasing; readers refuse a lower one.
    /// - Parameters:
    ///   - flags: booleans written beside the snapshot in the same replace (the catalog's
    ///     `legacyKeys`, see `Catalog.legacyFlags(_:)`).
    ///   - beforeReplacing: runs once the new file is written (and fsynced when durable), just
    ///     before it is renamed into place; if it throws, nothing is published.
    package func publish(
        _ snapshot: EntitlementSnapshot, flags: [String: Bool] = [:], beforeReplacing: () throws(Errno) -> Void = {}
    ) throws(SharedDefaultsError) {
        let value = snapshot.propertyList
        try update(beforeReplacing: beforeReplacing) { dictionary in
            dictionary[EntitlementSnapshot.defaultsKey] = value
            for (key, flag) in flags { dictionary[key] = .boolean(flag) }
        }
    }
}
