import EntitlementModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WidgetTimeline

/// Draws the watch as text for `widget-renderer --device watch`: the app's launch screen (the
/// unlocked app or its paywall, with the reason and how old the data is) followed by every
/// complication family's entry at `now`.
///
/// The screen is a 45 mm Apple Watch (198 × 242 pt, representative; see `WidgetFamily/displaySize`)
/// at the scale `TimelineTextRenderer` uses. Output depends only on the arguments; lines are
/// separated by `\n` with no trailing newline.
public struct WatchScreenRenderer: Sendable {
    /// The watch screen in points.
    public static let screenSize = DisplaySize(width: 198, height: 242)

    public var charset: TextCharset
    public var content: WidgetContent
    private let glyphs: Glyphs

    public init(charset: TextCharset = .unicode, content: WidgetContent = .sample) {
        self.charset = charset
        self.content = content
        self.glyphs = Glyphs(charset)
    }

    /// The launch screen alone, in a watch-sized box.
    public func renderLaunch(_ launch: AppLaunchGate, snapshot: EntitlementSnapshot?, now: Date) -> String {
        let columns = Int((Self.screenSize.width / TimelineTextRenderer.pointsPerColumn).rounded())
        let rows = Int((Self.screenSize.height / TimelineTextRenderer.pointsPerRow).rounded())
        let width = columns - 4
        let age = wrap(ReplicaPolicy.ageDescription(of: snapshot, now: now), width, maxLines: 2)
        let budget = rows - 2 - age.count
        var body: [String]
        switch launch {
        case .unlocked:
            body = [text(content.title)] + wrap(content.summary, width) + wrap(content.streak, width) + [""]
            for habit in content.habits {
                body += wrap("\(habit.doneToday ? glyphs.done : glyphs.notDone) \(habit.name)", width, maxLines: 1)
            }
        case .paywall(let paywall):
            let title = wrap("\(glyphs.lock) \(paywall.copy.title)", width, maxLines: 2)
            let action = wrap("\(glyphs.arrow) \(paywall.copy.callToAction)", width, maxLines: 2)
            let reason = wrap("reason: \(paywall.reason.rawValue)", width, maxLines: 2)
            let room = budget - title.count - action.count - reason.count - 2
            let message = room > 0 ? wrap(paywall.copy.message, width, maxLines: room) : []
            body = title + [""] + message + (message.isEmpty ? [] : [""]) + action + reason
        }
        if body.count > budget {
            body = Array(body.prefix(max(0, budget)))
            if let last = body.indices.last {
                body[last] = TextMetrics.withEllipsis(body[last], limit: width, ellipsis: glyphs.ellipsis)
            }
        }
        let inner = body + Array(repeating: "", count: max(0, budget - body.count)) + age
        let rule = String(repeating: glyphs.horizontal, count: columns - 2)
        var lines = [glyphs.topLeft + rule + glyphs.topRight]
        lines += inner.map { glyphs.vertical + " " + TextMetrics.pad($0, to: width, ellipsis: glyphs.ellipsis) + " " + glyphs.vertical }
        lines.append(glyphs.bottomLeft + rule + glyphs.bottomRight)
        return lines.joined(separator: "\n")
    }

    /// The whole watch: a header, the launch screen, then each complication family (watch
    /// profile order) with the entry its timeline shows at `now`.
    public func render(app: WatchApp, snapshot: EntitlementSnapshot?, now: Date) -> String {
        let renderer = TimelineTextRenderer(charset: charset)
        let generation = snapshot.map { "generation \($0.generation)" } ?? "no snapshot"
        var blocks = [
            text("watch \(glyphs.separator) \(Int(Self.screenSize.width))\(glyphs.times)\(Int(Self.screenSize.height)) pt "
                + "\(glyphs.separator) \(generation) \(glyphs.separator) now \(ISO8601.string(from: now))"),
            renderLaunch(app.launch(snapshot: snapshot, now: now), snapshot: snapshot, now: now),
        ]
        let timelines = app.complications(snapshot: snapshot, now: now)
        for family in DeviceProfile.watch.families {
            guard let timeline = timelines[family], let entry = timeline.entry(at: now) ?? timeline.entries.first else { continue }
            blocks.append("\(family.rawValue): \(renderer.describe(entry))")
            blocks.append(renderer.render(entry: entry, family: family))
        }
        return blocks.joined(separator: "\n")
    }

    private func wrap(_ value: String, _ width: Int, maxLines: Int = .max) -> [String] {
        TextMetrics.wrap(text(value), to: width, maxLines: maxLines, ellipsis: glyphs.ellipsis)
    }

    private func text(_ value: String) -> String {
        charset == .ascii ? TextMetrics.ascii(value) : value
    }
}
