import Entitlements
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WidgetTimeline

/// Draws the watch as text for `widget-renderer --device watch`: the app's launch screen (the
/// unlocked app or its paywall, with the reason and how old the data is) under a header, followed
/// by each complication family's timeline, a blank line between blocks.
///
/// The screen is a 45 mm Apple Watch (198 × 242 pt, representative; see `WidgetFamily.displaySize`)
/// at the scale `TimelineTextRenderer` uses. Instants are written in ``timeZone``. Output depends
/// only on the arguments; lines are separated by `\n` with no trailing newline.
public struct WatchScreenRenderer: Sendable {
    /// The watch screen in points.
    public static let screenSize = DisplaySize(width: 198, height: 242)

    /// The characters drawn with: Unicode box drawing, or printable ASCII only.
    public var charset: TextCharset
    /// The zone instants are written in (default UTC; the tools pass the local zone).
    public var timeZone: TextTimeZone
    /// What the unlocked app screen shows (a sample habit summary by default).
    public var content: WidgetContent
    private let glyphs: Glyphs

    /// A renderer drawing with `charset`, writing instants in `timeZone`, showing `content` when unlocked.
    public init(charset: TextCharset = .unicode, timeZone: TextTimeZone = .utc, content: WidgetContent = .sample) {
        self.charset = charset
        self.timeZone = timeZone
        self.content = content
        self.glyphs = Glyphs(charset)
    }

    /// The launch screen alone, in a watch-sized box.
    public func renderLaunch(_ launch: AppLaunchGate, snapshot: EntitlementSnapshot?, now: Date) -> String {
        let columns = Int((Self.screenSize.width / TimelineTextRenderer.pointsPerColumn).rounded())
        let rows = Int((Self.screenSize.height / TimelineTextRenderer.pointsPerRow).rounded())
        let width = columns - 4
        let age = wrap(SnapshotAge.description(of: snapshot, now: now), width, maxLines: 2)
        let budget = rows - 2 - age.count
        var body: [String]
        switch launch {
        case .unlocked:
            body = [text(content.title)] + wrap(content.summary, width) + wrap(content.streak, width) + [""]
            for habit in content.habits {
                body += wrap("\(habit.doneToday ? glyphs.done : glyphs.notDone) \(habit.name)", width, maxLines: 1)
            }
        case .paywall(let paywall):
            // The title takes the rows it needs, short of the call to action and the reason; the message gets the rest.
            let action = wrap("\(glyphs.arrow) \(paywall.copy.callToAction)", width, maxLines: 2)
            let reason = wrap("reason: \(paywall.reason.rawValue)", width, maxLines: 2)
            let title = wrap("\(glyphs.lock) \(paywall.copy.title)", width, maxLines: max(1, budget - action.count - reason.count - 1))
            // Rows left over: a blank after the title, then the message, then a blank before the action if there is room.
            let spare = budget - title.count - action.count - reason.count
            let message = spare >= 2 ? wrap(paywall.copy.message, width, maxLines: spare >= 3 ? spare - 2 : 1) : []
            let gap = !message.isEmpty && spare >= message.count + 2 ? [""] : []
            body = title + (spare >= 1 ? [""] : []) + message + gap + action + reason
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

    /// The launch screen under its header line (`watch app · 198×242 pt · generation 7 · now …`).
    public func renderScreen(_ launch: AppLaunchGate, snapshot: EntitlementSnapshot?, now: Date) -> String {
        let generation = snapshot.map { "generation \($0.generation)" } ?? "no snapshot"
        let header = "watch app \(glyphs.separator) \(Int(Self.screenSize.width))\(glyphs.times)\(Int(Self.screenSize.height)) pt "
            + "\(glyphs.separator) \(generation) \(glyphs.separator) now \(timeZone.timestamp(now))"
        return header + "\n" + renderLaunch(launch, snapshot: snapshot, now: now)
    }

    /// What `widget-renderer --device watch` prints: the launch screen with its header when
    /// `launch` is given, then each complication's timeline (`TimelineTextRenderer.render(timeline:family:now:)`),
    /// in the order given, a blank line between blocks.
    public func render(
        launch: AppLaunchGate?, complications: [(family: WidgetFamily, timeline: Timeline)], snapshot: EntitlementSnapshot?, now: Date
    ) -> String {
        let renderer = TimelineTextRenderer(charset: charset, timeZone: timeZone)
        let screen = launch.map { [renderScreen($0, snapshot: snapshot, now: now)] } ?? []
        return (screen + complications.map { renderer.render(timeline: $0.timeline, family: $0.family, now: now) })
            .joined(separator: "\n\n")
    }

    /// The whole watch for `app`: the launch screen and every complication family (watch profile order).
    public func render(app: WatchApp, snapshot: EntitlementSnapshot?, now: Date) -> String {
        let timelines = app.complications(snapshot: snapshot, now: now)
        return render(
            launch: app.launch(snapshot: snapshot, now: now),
            complications: DeviceProfile.watch.families.compactMap { family in timelines[family].map { (family, $0) } },
            snapshot: snapshot, now: now)
    }

    private func wrap(_ value: String, _ width: Int, maxLines: Int = .max) -> [String] {
        TextMetrics.wrap(text(value), to: width, maxLines: maxLines, ellipsis: glyphs.ellipsis)
    }

    private func text(_ value: String) -> String {
        TextMetrics.displayable(value, charset: charset)
    }
}
