import EntitlementModel
import PropertyList
import SharedDefaults

extension SharedDefaults {
    /// Writes `snapshot` under `EntitlementSnapshot/defaultsKey` in one locked update, leaving
    /// every other key in the suite as it is.
    ///
    /// The caller is responsible for `generation` increasing; readers refuse a lower one.
    package func publish(_ snapshot: EntitlementSnapshot) throws(SharedDefaultsError) {
        let value = snapshot.propertyList
        try update { dictionary in dictionary[EntitlementSnapshot.defaultsKey] = value }
    }
}
