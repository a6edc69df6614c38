import StoreKitFormats

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
    /// The copy shown when the feature is locked (for a reason ``copyByReason`` does not override).
    public var paywall: PaywallCopy
    /// Copy per reason (`paywall.byReason`): keys are `check`'s reasons and
    /// ``introOfferCopyKey``; see ``copy(for:introOfferEligible:)``.
    public var copyByReason: [String: PaywallCopyOverride]
    /// How long after a recorded `paywallShown` the paywall is not presented again (the
    /// feature's `paywall.cooldown`, else the catalog's `paywallCooldown`); `nil`: every time.
    public var cooldown: ISO8601Duration?
    /// The subscription groups of the products that unlock the feature and have an
    /// introductory offer (from the catalog and its `.storekit` file).
    public var introOfferGroups: Set<String>

    /// A rule; catalogs build theirs from `Catalog.json`.
    public init(
        entitlement: String?, freeCount: Int? = nil, freeDays: Int? = nil, paywall: PaywallCopy,
        copyByReason: [String: PaywallCopyOverride] = [:], cooldown: ISO8601Duration? = nil, introOfferGroups: Set<String> = []
    ) {
        self.entitlement = entitlement
        self.freeCount = freeCount
        self.freeDays = freeDays
        self.paywall = paywall
        self.copyByReason = copyByReason
        self.cooldown = cooldown
        self.introOfferGroups = introOfferGroups
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
