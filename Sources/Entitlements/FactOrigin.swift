import StoreKitFormats

/// Where a fact comes from: the app (`bundleId`) and the App Store environment it names, each
/// `nil` when the fact does not say.
///
/// A ``FactStore`` keeps every fact it is given, whatever its origin; whether facts of an origin
/// count is the catalog's to say (``Catalog/counts(_:)``), asked by the engine at every
/// evaluation, so a fact of another environment grants nothing under this catalog and counts
/// again under one that accepts it.
public struct FactOrigin: Sendable, Hashable {
    /// The app the fact is for; `nil` when it does not say (renewal info never does).
    public var bundleId: String?
    /// The App Store environment the fact comes from; `nil` when it does not say.
    public var environment: StoreEnvironment?
}
