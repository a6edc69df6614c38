import StoreKitFormats
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One family's timeline as `widget-renderer --json` prints it, one line per family:
///
/// ```json
/// {"family": F, "generation": N-or-null,
///  "policy": {"kind": "after"|"atEnd"|"never", "date": ISO8601-or-null},
///  "entries": [{"date": ISO8601, "locked": bool, "state": "unlocked"|"locked"|"placeholder",
///               "reason": R-or-null, "title": T-or-null, "callToAction": C-or-null,
///               "deepLink": L-or-null, "stale": bool}]}
/// ```
/// `reason`, `title`, `callToAction` and `deepLink` come from the paywall and are `null` for
/// unlocked and placeholder entries. `generation` is `null` when no snapshot could be read.
/// Serialise with `JSONValue/serialized` for one deterministic line.
package func timelineJSON(family: WidgetFamily, generation: Int64?, timeline: Timeline, feature: String? = nil) -> JSONValue {
    let policy: JSONValue
    switch timeline.policy {
    case .after(let date): policy = .object(["kind": "after", "date": .date(date)])
    case .atEnd: policy = .object(["kind": "atEnd", "date": .null])
    case .never: policy = .object(["kind": "never", "date": .null])
    }
    var object: [String: JSONValue] = [
        "family": .string(family.rawValue),
        "generation": generation.map(JSONValue.int) ?? .null,
        "policy": policy,
        "entries": .array(timeline.entries.map(entryJSON)),
    ]
    if let feature { object["feature"] = .string(feature) }
    return .object(object)
}

private func entryJSON(_ entry: EntitlementEntry) -> JSONValue {
    let stateName: String
    switch entry.state {
    case .unlocked: stateName = "unlocked"
    case .locked: stateName = "locked"
    case .placeholder: stateName = "placeholder"
    }
    let paywall = entry.paywall
    return .object([
        "date": .date(entry.date),
        "locked": .bool(entry.isLocked),
        "state": .string(stateName),
        "reason": paywall.map { .string($0.reason.rawValue) } ?? .null,
        "title": paywall.map { .string($0.copy.title) } ?? .null,
        "callToAction": paywall.map { .string($0.copy.callToAction) } ?? .null,
        "deepLink": paywall.map { .string($0.deepLink) } ?? .null,
        "stale": .bool(entry.isStale),
    ])
}
