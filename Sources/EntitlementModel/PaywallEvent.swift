#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One paywall analytics event (`paywallShown` / `paywallDismissed` /
/// `upgradedFromPaywall`), stored as one JSON Lines record:
///
/// ```json
/// {"event":"paywallShown","feature":"groups","reason":"limitReached","time":"2026-11-22T10:00:00Z"}
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
        /// The user bought from the paywall.
        case upgradedFromPaywall
    }

    /// What happened: shown, dismissed, or bought from it.
    public var kind: Kind
    /// The feature whose check showed the paywall.
    public var feature: String
    /// Why it was locked.
    public var reason: PaywallReason
    /// When it happened (millisecond precision in the record).
    public var time: Date

    /// A record of `kind` for `feature`, locked for `reason`, at `time` (stored to the millisecond).
    public init(_ kind: Kind, feature: String, reason: PaywallReason, time: Date) {
        self.kind = kind
        self.feature = feature
        self.reason = reason
        self.time = time
    }

    /// The `paywallShown` event for a locked decision; `nil` for an unlocked one.
    public static func shown(for decision: GateDecision, time: Date) -> PaywallEvent? {
        decision.paywall.map { PaywallEvent(.paywallShown, feature: $0.feature, reason: $0.reason, time: time) }
    }

    /// The record: compact JSON, keys sorted, no newline.
    public var jsonLine: String {
        JSONValue.object([
            "event": .string(kind.rawValue), "feature": .string(feature), "reason": .string(reason.rawValue),
            "time": .date(time),
        ]).serialized
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
            let reasonCursor = try root.required("reason")
            let timeCursor = try root.required("time")
            guard let kind = Kind(rawValue: try kindCursor.string()) else { throw kindCursor.fail("unknown event") }
            guard let reason = PaywallReason(rawValue: try reasonCursor.string()) else { throw reasonCursor.fail("unknown reason") }
            guard let time = ISO8601.date(from: try timeCursor.string()) else { throw timeCursor.fail("not an ISO 8601 date") }
            self.init(kind, feature: try root.required("feature").string(), reason: reason, time: time)
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
