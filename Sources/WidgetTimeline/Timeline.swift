#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// When WidgetKit should ask the provider for a new timeline.
public enum TimelineReloadPolicy: Sendable, Hashable {
    /// After the last entry's date.
    case atEnd
    /// At (or soon after) the given instant.
    case after(Date)
    /// Only when the app (here: the shared-file watcher) asks for a reload.
    case never
}

/// A provider's answer (WidgetKit's `Timeline`): entries in ascending date order and a reload policy.
public struct Timeline: Sendable, Hashable {
    /// The entries, ascending by date; the first is dated at the provider's `now`.
    public var entries: [EntitlementEntry]
    /// When WidgetKit should ask for a new timeline.
    public var policy: TimelineReloadPolicy

    /// A timeline of `entries` (ascending by date) and `policy`.
    public init(entries: [EntitlementEntry], policy: TimelineReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }

    /// The entry WidgetKit shows at `date`: the latest entry whose date is not after `date`.
    /// `nil` when `date` is before the first entry (or there are no entries).
    /// Assumes ``entries`` ascend by date, as every provider in this module guarantees.
    public func entry(at date: Date) -> EntitlementEntry? {
        entries.last { $0.date <= date }
    }
}
