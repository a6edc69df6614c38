import StoreKitFormats

extension PeriodType {
    /// The period an auto-renewable subscription's transaction is in, given its offer.
    ///
    /// An introductory offer (`offerType` 1) is a `trial` when its `offerDiscountType` is
    /// `FREE_TRIAL` and `intro` for any other discount type. Transactions signed before 2024 and
    /// Xcode's do not carry `offerDiscountType`: then the catalog's `.storekit` file decides
    /// (`paymentMode` `free` is a trial, `payAsYouGo` and `payUpFront` are not), and a product the
    /// catalog gives no introductory offer counts as a trial, which is what such payloads almost
    /// always were. Promotional (`offerType` 2), offer-code (3) and win-back (4) offers are
    /// `promotional`, `offerCode` and `winBack`; an offer type this build does not know is `intro`.
    package static func of(
        offer: OfferType, discount: OfferDiscountType?, catalogIntroductoryOfferIsFreeTrial: Bool?
    ) -> PeriodType {
        switch offer {
        case .introductory: break
        case .promotional: return .promotional
        case .offerCode: return .offerCode
        case .winBack: return .winBack
        default: return .intro
        }
        if let discount { return discount == .freeTrial ? .trial : .intro }
        return catalogIntroductoryOfferIsFreeTrial ?? true ? .trial : .intro
    }
}
