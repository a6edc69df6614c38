import Entitlements
import Foundation
import Testing
import WidgetTimeline

@Suite struct TimelineJSONTests {
    @Test func subscriptionTimelineExactLine() {
        let timeline = EntitlementTimelineProvider(gate: Fixtures.gate)
            .timeline(for: Fixtures.subscribed, in: TimelineProviderContext(family: .systemSmall), now: Fixtures.now)
        let line = timelineJSON(family: .systemSmall, generation: 7, timeline: timeline).serialized
        #expect(line == #"{"entries":[{"callToAction":null,"date":"2026-03-01T12:03:00Z","deepLink":null,"locked":false,"#
            + #""reason":null,"stale":false,"state":"unlocked","title":null},{"callToAction":"Start free trial","#
            + #""date":"2026-03-05T09:30:00Z","deepLink":"app://paywall?feature=widgets&reason=expired","locked":true,"#
            + #""reason":"expired","stale":false,"state":"locked","title":"Widgets need Plus"}],"family":"systemSmall","#
            + #""generation":7,"policy":{"date":"2026-03-05T09:30:00Z","kind":"after"}}"#)
    }

    @Test func noSnapshotHasNullGenerationAndNeverPolicy() {
        let timeline = EntitlementTimelineProvider(gate: Fixtures.gate)
            .timeline(for: nil, in: TimelineProviderContext(family: .accessoryInline), now: Fixtures.now)
        let json = timelineJSON(family: .accessoryInline, generation: nil, timeline: timeline)
        guard case .object(let root) = json, case .array(let entries) = root["entries"], case .object(let entry) = entries.first
        else { Issue.record("unexpected shape \(json.serialized)"); return }
        #expect(root["generation"] == .null)
        #expect(root["policy"] == .object(["kind": "never", "date": .null]))
        #expect(entry["reason"] == "noSnapshot")
        #expect(entry["locked"] == true)
    }

    @Test func placeholderAndAtEndShapes() {
        let timeline = Timeline(entries: [EntitlementEntry(date: Fixtures.now, state: .placeholder)], policy: .atEnd)
        #expect(timelineJSON(family: .accessoryCorner, generation: 1, timeline: timeline).serialized
            == #"{"entries":[{"callToAction":null,"date":"2026-03-01T12:03:00Z","deepLink":null,"locked":false,"#
            + #""reason":null,"stale":false,"state":"placeholder","title":null}],"family":"accessoryCorner","#
            + #""generation":1,"policy":{"date":null,"kind":"atEnd"}}"#)
    }
}
