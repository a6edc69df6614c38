#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StoreKitFormats

/// Catalog key `paidAppGrant`: users who bought the app while it was paid keep an entitlement
/// for good once it turns free with a subscription. A Production `AppTransaction` of the
/// catalog's app grants ``entitlement`` when its original version is lower than
/// ``beforeVersion`` or its original purchase earlier than ``beforeDate`` (either that is set).
public struct PaidAppGrant: Sendable, Hashable {
    /// The entitlement granted.
    public var entitlement: String
    /// Builds before this one were paid (dotted numbers, `CFBundleVersion` on iOS).
    public var beforeVersion: [Int]?
    /// Purchases before this instant were of the paid app.
    public var beforeDate: Date?

    /// Whether `app` was bought while the app was paid (its origin is the caller's to check).
    public func covers(_ app: AppTransaction) -> Bool {
        if let beforeVersion, let version = app.originalApplicationVersion.flatMap(Self.version), Self.isLower(version, than: beforeVersion) {
            return true
        }
        if let beforeDate, let purchased = app.originalPurchaseDate, purchased < beforeDate { return true }
        return false
    }

    /// The numbers of a dotted version (`"1.10.2"` -> `[1, 10, 2]`); `nil` unless every part is
    /// a decimal number.
    public static func version(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { $0.utf8.count <= 9 && $0.allSatisfy({ $0.isASCII && $0.isNumber }) ? Int($0) : nil }
        return numbers.count == parts.count ? numbers : nil
    }

    /// Dotted numeric order: part by part, a missing part counting as 0 (`1.2` = `1.2.0` < `1.10`).
    public static func isLower(_ a: [Int], than b: [Int]) -> Bool {
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0, y = index < b.count ? b[index] : 0
            if x != y { return x < y }
        }
        return false
    }
}
