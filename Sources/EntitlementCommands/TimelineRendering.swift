import EntitlementModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SharedDefaults
import WatchExtension
import WidgetTimeline

/// Turns a snapshot into what `widget-renderer` prints, and says when to print again.
struct TimelineRendering: Sendable {
    var device: DeviceProfile
    var families: [WidgetFamily]
    var format: OutputFormat
    var charset: TextCharset
    var gate: FeatureGate

    /// The text to print and the earliest reload date of the rendered timelines (`nil`: none).
    ///
    /// `now` (the wall clock, or `--now`) is first raised to the snapshot's
    /// ``EntitlementSnapshot/effectiveNow(wallClock:boot:)`` with this boot's clock: on the boot
    /// the snapshot was issued in, a clock (or a `--now`) set back cannot render access that has
    /// ended.
    func render(_ snapshot: EntitlementSnapshot?, now wallClock: Date) -> (output: String, reloadAt: Date?) {
        let now = snapshot?.effectiveNow(wallClock: wallClock, boot: .current()) ?? wallClock
        let timelines: [(WidgetFamily, Timeline)]
        var output = ""
        if device == .watch {
            let app = WatchApp(gate: gate)
            let complications = app.complications(snapshot: snapshot, now: now)
            timelines = families.compactMap { family in complications[family].map { (family, $0) } }
            let launch = app.launch(snapshot: snapshot, now: now)
            switch format {
            case .text: output += WatchScreenRenderer(charset: charset).renderLaunch(launch, snapshot: snapshot, now: now) + "\n"
            case .json: output += Self.launchJSON(launch, snapshot: snapshot).serialized + "\n"
            }
        } else {
            let provider = EntitlementTimelineProvider(gate: gate)
            timelines = families.map { family in
                (family, provider.timeline(for: snapshot, in: TimelineProviderContext(family: family), now: now))
            }
        }
        for (family, timeline) in timelines {
            switch format {
            case .json:
                output += timelineJSON(family: family, generation: snapshot?.generation, timeline: timeline).serialized + "\n"
            case .text:
                output += TimelineTextRenderer(charset: charset).render(timeline: timeline, family: family, now: now) + "\n"
            }
        }
        let reloadAt = timelines.compactMap { (_, timeline) -> Date? in
            if case .after(let date) = timeline.policy { return date }
            return nil
        }.min()
        return (output, reloadAt)
    }

    static func launchJSON(_ launch: AppLaunchGate, snapshot: EntitlementSnapshot?) -> JSONValue {
        var object: [String: JSONValue] = ["device": "watch", "generation": snapshot.map { .int($0.generation) } ?? .null]
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
