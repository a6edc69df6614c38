/// A premium toggle the catalog declares (catalog key `preferences`: suite key ->
/// `{"feature": F, "default": bool}`): the user's choice is stored under the key in the app
/// group's suite and is resolved at the next launch, where it takes effect only when it is on
/// and `feature` is unlocked (the iCloud-sync document's "sync needs premium").
public struct PreferenceDeclaration: Sendable, Hashable {
    /// The feature whose unlocking the toggle needs; the catalog's `features` defines it.
    public var feature: String
    /// The toggle's value before the user has touched it.
    public var defaultValue: Bool

    /// A toggle that needs `feature` and reads `defaultValue` until the user sets it.
    public init(feature: String, defaultValue: Bool) {
        self.feature = feature
        self.defaultValue = defaultValue
    }
}
