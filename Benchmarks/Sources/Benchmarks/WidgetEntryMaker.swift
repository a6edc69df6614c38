import EntitlementDefaults
import Entitlements
import Foundation
import WidgetTimeline

/// What every reader does once it has a new snapshot: the widget's timeline, as WidgetKit would
/// ask for it, for the `widgets` feature of the catalog.
struct WidgetEntryMaker {
    let provider: EntitlementTimelineProvider

    init(catalogPath: String) throws(BenchmarkError) {
        do {
            provider = EntitlementTimelineProvider(gate: try Catalog.load(path: catalogPath).featureGate, feature: "widgets")
        } catch {
            throw BenchmarkError("\(error)")
        }
    }

    /// Builds the timeline for `snapshot` now and keeps its first entry from being optimised away.
    func makeEntry(_ snapshot: EntitlementSnapshot) {
        let timeline = provider.timeline(for: snapshot, in: TimelineProviderContext(family: .systemSmall), now: Date())
        blackHole(timeline.entries.first)
    }
}
