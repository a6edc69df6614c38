#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What WidgetKit tells a provider about the widget it is producing entries for.
public struct TimelineProviderContext: Sendable, Hashable {
    /// The size class the entries are for.
    public var family: WidgetFamily
    /// The widget's size in points; defaults to the family's ``WidgetFamily/displaySize``.
    public var displaySize: DisplaySize
    /// `true` in the widget gallery: the provider must answer quickly with sample content and must
    /// not show a paywall to someone who is only browsing.
    public var isPreview: Bool

    /// A context for `family`, at the family's own size unless `displaySize` is given.
    public init(family: WidgetFamily, displaySize: DisplaySize? = nil, isPreview: Bool = false) {
        self.family = family
        self.displaySize = displaySize ?? family.displaySize
        self.isPreview = isPreview
    }
}
