import Entitlements
import SharedDefaults

extension SharedDefaults {
    /// Writes `snapshot` where the daemon publishes it, through the store's public API: the same
    /// locked read-modify-write, encode and atomic replace as the daemon's publish, which is not
    /// public because in a product only the daemon writes snapshots.
    func writeSnapshot(_ snapshot: EntitlementSnapshot) throws(SharedDefaultsError) {
        try set(snapshot.propertyList, forKey: EntitlementSnapshot.defaultsKey)
    }
}
