#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import StoreKitFormats

/// One paywall analytics event (`paywallShown` / `paywallDismissed` / `upgradedFromPaywall` /
/// `featureUsed`), stored as one JSON Lines record:
///
/// ```json
/// {"event":"paywallShown","feature":"groups","reason":"limitReached","time":"2026-11-22T10:00:00Z"}
/// {"event":"featureUsed","feature":"groups","tier":"free","time":"2026-11-22T10:01:00Z"}
/// ```
///
/// Pure value; the writer that appends it to `<container>/Library/Analytics/paywall.jsonl` lives in
/// the EntitlementDefaults module (`PaywallAnalyticsLog`).
public struct PaywallEvent: Sendable, Hashable {
    /// What happened to the paywall.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A denied check showed (or would show) the paywall.
        case paywallShown
        /// The user closed the paywall without buying.
        case paywallDismissed
        /// The user bought from the paywall: a purchase unlocking the feature within the
        /// catalog's `attributionWindow` after a `paywallShown` for it (the daemon records it).
        case upgradedFromPaywall
        /// An unlocked check: the user used the feature (see ``tier``).
        case featureUsed
    }

    /// Who used a feature: a user holding the entitlement that unlocks it, or anyone else (a
    /// free allowance, or a feature free for everyone).
    public enum Tier: String, Sendable, Hashable, CaseIterable {
        /// The feature's entitlement is in force.
        case premium
        /// A free allowance, or a feature free for everyone.
        case free
    }

    /// What happened: shown, dismissed, or bought from it.
    public var kind: Kind
    /// The feature whose check showed the paywall.
    public var feature: String
    /// Why it was locked; `nil` for `featureUsed` (and a dismissal of a paywall no longer locked).
    public var reason: PaywallReason?
    /// For `featureUsed`, who used it; `nil` otherwise.
    public var tier: Tier?
    /// When it happened (millisecond precision in the record).
    public var time: Date

    /// A record of `kind` for `feature`, locked for `reason`, at `time` (stored to the millisecond).
    public init(_ kind: Kind, feature: String, reason: PaywallReason?, tier: Tier? = nil, time: Date) {
        self.kind = kind
        self.feature = feature
        self.reason = reason
        self.tier = tier
        self.time = time
    }

    /// A `featureUsed` record of `feature` by a user of `tier`.
    ///
    /// ```swift
    /// try log.append(.used("cards", tier: .free, time: .now))
    /// ```
    public static func used(_ feature: String, tier: Tier, time: Date) -> PaywallEvent {
        PaywallEvent(.featureUsed, feature: feature, reason: nil, tier: tier, time: time)
    }

    /// The `paywallShown` event for a locked decision; `nil` for an unlocked one.
    public static func shown(for decision: GateDecision, time: Date) -> PaywallEvent? {
        decision.paywall.map { PaywallEvent(.paywallShown, feature: $0.feature, reason: $0.reason, time: time) }
    }

    /// The record: compact JSON, keys sorted, no newline.
    public var jsonLine: String {
        var object: [String: JSONValue] = ["event": .string(kind.rawValue), "feature": .string(feature), "time": .date(time)]
        if let reason { object["reason"] = .string(reason.rawValue) }
        if let tier { object["tier"] = .string(tier.rawValue) }
        return JSONValue.object(object).serialized
    }

    /// Decodes one record as ``jsonLine`` writes it.
    ///
    /// - Throws: ``PaywallEventDecodingError`` naming the problem (not JSON, a missing key, an
    ///   unknown event or reason, a bad time).
    public init(jsonLine line: String) throws(PaywallEventDecodingError) {
        let root: JSONCursor
        do { root = JSONCursor(try JSONInput.parse(Array(line.utf8)), rootLabel: "paywall event") } catch {
            throw PaywallEventDecodingError(message: "not JSON: \(error.description)")
        }
        do throws(JSONPathError) {
            let kindCursor = try root.required("event")
            let timeCursor = try root.required("time")
            let kind = try kindCursor.string(Kind.init(rawValue:)) { _ in "unknown event" }
            let reason = try root.optional("reason")?.string(PaywallReason.init(rawValue:)) { _ in "unknown reason" }
            let tier = try root.optional("tier")?.string(Tier.init(rawValue:)) { _ in "unknown tier" }
            let time = try timeCursor.string(ISO8601.date(from:)) { _ in "not an ISO 8601 date" }
            self.init(kind, feature: try root.required("feature").string(), reason: reason, tier: tier, time: time)
        } catch {
            throw PaywallEventDecodingError(message: error.message)
        }
    }
}

/// A paywall analytics record that does not decode; `message` names the key and the problem.
public struct PaywallEventDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong: the key and the problem, or that the line is not JSON.
    public var message: String
    public var description: String { message }
}
