import CLISupport
import Entitlements
import StoreKitFormats
import FoundationEssentials
import SharedDefaults
import WatchExtension
import WidgetTimeline

/// Turns a snapshot into what `widget-renderer` prints, and says when to print again.
struct TimelineRendering: Sendable {
    var device: DeviceProfile
    /// The widget (or complication) families to render, in order.
    var families: [WidgetFamily]
    /// Whether the watch app's launch screen is rendered (watch only).
    var showsWatchApp: Bool
    var format: OutputFormat
    var charset: TextCharset
    var timeZone: TextTimeZone
    var gate: FeatureGate
    /// The feature that gates what is rendered: the widgets' on a phone or tablet, the watch
    /// app's (and its complications') on the watch.
    var feature: String
    /// How long the watch trusts a snapshot after its last sync with the phone (the catalog's
    /// `companionOfflineLimit`): the watch's timelines, and any of a snapshot the watch's broker
    /// published, lock at its end (``EntitlementSnapshot/watchTrustedUntil(offlineLimit:readerIsWatch:)``).
    var offlineLimit: ISO8601Duration

    /// The text to print and the earliest reload date of the rendered timelines (`nil`: none).
    /// Text is one block per family (the watch app's screen first), a blank line between blocks;
    /// JSON is one line per block.
    ///
    /// `now` (the wall clock, or `--now`) is first raised to the snapshot's
    /// ``EntitlementSnapshot/effectiveNow(wallClock:boot:)`` with this boot's clock: on the boot
    /// the snapshot was issued in, a clock (or a `--now`) set back cannot render access that has
    /// ended. With `stale` (the follower could not read the shared file lately) every entry is
    /// marked stale: the snapshot shown may not be the latest.
    func render(_ snapshot: EntitlementSnapshot?, now wallClock: Date, stale: Bool = false) -> (output: String, reloadAt: Date?) {
        let now = snapshot?.effectiveNow(wallClock: wallClock, boot: .current()) ?? wallClock
        var launch: AppLaunchGate?
        var timelines: [(family: WidgetFamily, timeline: Timeline)]
        if device == .watch {
            let app = WatchApp(gate: gate, feature: feature, offlineLimit: offlineLimit)
            let complications = app.complications(snapshot: snapshot, now: now)
            timelines = families.compactMap { family in complications[family].map { (family, $0) } }
            if showsWatchApp { launch = app.launch(snapshot: snapshot, now: now) }
        } else {
            let provider = EntitlementTimelineProvider(gate: gate, feature: feature)
            let validUntil = snapshot?.watchTrustedUntil(offlineLimit: offlineLimit, readerIsWatch: false)
            timelines = families.map { family in
                (family, provider.timeline(for: snapshot, in: TimelineProviderContext(family: family), now: now, validUntil: validUntil))
            }
        }
        if stale {
            for index in timelines.indices {
                for entry in timelines[index].timeline.entries.indices { timelines[index].timeline.entries[entry].isStale = true }
            }
        }
        var output: String
        switch format {
        case .text where device == .watch:
            output = WatchScreenRenderer(charset: charset, timeZone: timeZone)
                .render(launch: launch, complications: timelines, snapshot: snapshot, now: now) + "\n"
        case .text:
            let renderer = TimelineTextRenderer(charset: charset, timeZone: timeZone)
            output = timelines.map { renderer.render(timeline: $0.timeline, family: $0.family, now: now) }
                .joined(separator: "\n\n") + "\n"
        case .json:
            output = launch.map { Self.launchJSON($0, snapshot: snapshot, feature: feature).serialized + "\n" } ?? ""
            for (family, timeline) in timelines {
                output += timelineJSON(family: family, generation: snapshot?.generation, timeline: timeline, feature: feature).serialized + "\n"
            }
        }
        let reloadAt = timelines.compactMap { (_, timeline) -> Date? in
            if case .after(let date) = timeline.policy { return date }
            return nil
        }.min()
        return (output, reloadAt)
    }

    static func launchJSON(_ launch: AppLaunchGate, snapshot: EntitlementSnapshot?, feature: String) -> JSONValue {
        var object: [String: JSONValue] = [
            "device": "watch", "generation": snapshot.map { .int($0.generation) } ?? .null, "feature": .string(feature),
        ]
        switch launch {
        case .unlocked:
            object["launch"] = .object(["locked": false])
        case .paywall(let paywall):
            object["launch"] = .object([
                "locked": true, "reason": .string(paywall.reason.rawValue), "title": .string(paywall.copy.title),
                "callToAction": .string(paywall.copy.callToAction), "deepLink": .string(paywall.deepLink),
            ])
        }
        return .object(object)
    }
}
