/// Copy that replaces some of a feature's paywall texts for one reason (the catalog's
/// `paywall.byReason.REASON`); a text it leaves out comes from the next copy in the chain.
///
/// ```json
/// "paywall": {"title": "Widgets need Plus", "message": "…", "callToAction": "Unlock widgets",
///             "byReason": {"expired": {"title": "Your Plus ended"},
///                          "introOffer": {"callToAction": "Start your free week"}}}
/// ```
public struct PaywallCopyOverride: Sendable, Hashable {
    /// The headline for this reason, or `nil` to keep the next one's.
    public var title: String?
    /// The message for this reason, or `nil` to keep the next one's.
    public var message: String?
    /// The button text for this reason, or `nil` to keep the next one's.
    public var callToAction: String?

    /// An override of the given texts; any may be `nil`.
    public init(title: String? = nil, message: String? = nil, callToAction: String? = nil) {
        self.title = title
        self.message = message
        self.callToAction = callToAction
    }

    /// The reasons `byReason` may name beside ``FeatureRule/introOfferCopyKey``: `check`'s
    /// reasons, including those a newer gate may give.
    public static let reasons = [
        "notEntitled", "expired", "revoked", "familyRevoked", "inBillingRetryPeriod", "limitReached", "noSnapshot",
    ]
}

extension FeatureRule {
    /// The `byReason` key whose copy applies, when the user may take an introductory offer, in
    /// place of the copy for ``PaywallReason/notEntitled`` and ``PaywallReason/expired``.
    public static let introOfferCopyKey = "introOffer"

    /// The copy a paywall shows when the feature is locked for `reason`: the feature's own copy,
    /// overridden by `byReason[reason]`, overridden in turn by `byReason.introOffer` when
    /// `introOfferEligible` and the reason is `notEntitled` or `expired`. The reason stays
    /// `reason` either way.
    ///
    /// ```swift
    /// let copy = rule.copy(for: .expired, introOfferEligible: false)   // "Your Plus ended"
    /// ```
    public func copy(for reason: PaywallReason, introOfferEligible: Bool) -> PaywallCopy {
        let offer = introOfferEligible && (reason == .notEntitled || reason == .expired) ? copyByReason[Self.introOfferCopyKey] : nil
        var copy = paywall
        for override in [copyByReason[reason.rawValue], offer].compactMap({ $0 }) {
            copy = PaywallCopy(
                title: override.title ?? copy.title, message: override.message ?? copy.message,
                callToAction: override.callToAction ?? copy.callToAction)
        }
        return copy
    }
}
