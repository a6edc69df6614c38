/// What one feature needs, as the catalog's `features` section describes it.
///
/// ```json
/// "habits":  {"entitlement": "plus", "freeLimit": {"count": 3},
///             "paywall": {"title": "…", "message": "…", "callToAction": "…"}}
/// "history": {"entitlement": "plus", "freeLimit": {"days": 30}, "paywall": {…}}
/// "widgets": {"entitlement": "plus", "paywall": {…}}
/// "export":  {}                       // free for everyone
/// ```
public struct FeatureRule: Sendable, Hashable {
    /// The entitlement that unlocks the feature fully; `nil` for a free feature.
    public var entitlement: String?
    /// Free users may use this many items (habits, collections, cards); `nil` when there is no free allowance.
    public var freeCount: Int?
    /// Free users may look this many days back (history); `nil` when there is no window.
    public var freeDays: Int?
    /// The copy shown when the feature is locked.
    public var paywall: PaywallCopy

    /// A rule; catalogs build theirs from `Catalog.json`.
    public init(entitlement: String?, freeCount: Int? = nil, freeDays: Int? = nil, paywall: PaywallCopy) {
        self.entitlement = entitlement
        self.freeCount = freeCount
        self.freeDays = freeDays
        self.paywall = paywall
    }
}

/// Paywall copy from the catalog: what a locked widget, watch screen or `check` shows.
public struct PaywallCopy: Sendable, Hashable {
    /// The headline (`Widgets need Geko Plus`).
    public var title: String
    /// One or two sentences on what the user gets.
    public var message: String
    /// The button text (`Unlock widgets`).
    public var callToAction: String

    /// Copy from its three texts.
    public init(title: String, message: String, callToAction: String) {
        self.title = title
        self.message = message
        self.callToAction = callToAction
    }
}
