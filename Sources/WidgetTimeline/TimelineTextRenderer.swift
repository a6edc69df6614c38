import Entitlements
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Draws widget entries and timelines as text for people (the contract leaves text free in form).
///
/// Every family is drawn in proportion to its HIG size: one character cell stands for
/// ``pointsPerColumn`` × ``pointsPerRow`` points, rounded, and boxed families are clamped to at
/// least ``minimumColumns`` × ``minimumRows`` cells so they stay readable (this only enlarges
/// `accessoryCorner`). `system*` families are square boxes, `accessoryCircular` a round-ish box,
/// `accessoryRectangular` and `accessoryCorner` small boxes, `accessoryInline` a single line.
/// All text is fitted inside its box: wrapped at word boundaries into the rows the box has, and
/// only what still does not fit is cut, after a whole word where one fits, with `…` (`...` in
/// ASCII).
///
/// Instants are written for people, in ``timeZone``: `2026-11-23 14:05:41 +01:00`.
///
/// Output is a function of its arguments only; lines are separated by `\n`, with no trailing
/// newline and no trailing spaces.
public struct TimelineTextRenderer: Sendable {
    /// Width in points of one character cell.
    public static let pointsPerColumn = 10.0
    /// Height in points of one character cell (a terminal cell is about twice as tall as wide).
    public static let pointsPerRow = 20.0
    /// The fewest columns a boxed family is drawn with, frame included.
    public static let minimumColumns = 8
    /// The fewest rows a boxed family is drawn with, frame included.
    public static let minimumRows = 4

    /// The characters drawn with: Unicode box drawing, or printable ASCII only.
    public var charset: TextCharset
    /// The zone instants are written in (default UTC; the tools pass the local zone).
    public var timeZone: TextTimeZone
    private let glyphs: Glyphs

    /// A renderer drawing with `charset` and writing instants in `timeZone`.
    public init(charset: TextCharset = .unicode, timeZone: TextTimeZone = .utc) {
        self.charset = charset
        self.timeZone = timeZone
        self.glyphs = Glyphs(charset)
    }

    /// The size in character cells `family` is drawn at, frame included. `accessoryInline` is one row.
    public static func cells(for family: WidgetFamily) -> (columns: Int, rows: Int) {
        let size = family.displaySize
        let columns = Int((size.width / pointsPerColumn).rounded())
        if family == .accessoryInline { return (columns, 1) }
        let rows = Int((size.height / pointsPerRow).rounded())
        return (max(columns, minimumColumns), max(rows, minimumRows))
    }

    /// One entry drawn as `family`.
    public func render(entry: EntitlementEntry, family: WidgetFamily) -> String {
        let (columns, rows) = Self.cells(for: family)
        switch family {
        case .accessoryInline:
            return trimmed([inlineLine(entry, width: columns)])
        case .accessoryCircular, .accessoryCorner:
            let inner = compactLines(entry, width: columns - 2, rows: rows - 2)
                .map { TextMetrics.center($0, in: columns - 2, ellipsis: glyphs.ellipsis) }
            return trimmed(frame(inner, width: columns, round: family == .accessoryCircular))
        case .accessoryRectangular:
            let inner = rectangularLines(entry, width: columns - 2, rows: rows - 2)
                .map { TextMetrics.pad($0, to: columns - 2, ellipsis: glyphs.ellipsis) }
            return trimmed(frame(inner, width: columns, round: false))
        case .systemSmall, .systemMedium, .systemLarge, .systemExtraLarge:
            let textWidth = columns - 4
            let inner = systemLines(entry, family: family, width: textWidth, rows: rows - 2)
                .map { " " + TextMetrics.pad($0, to: textWidth, ellipsis: glyphs.ellipsis) + " " }
            return trimmed(frame(inner, width: columns, round: false))
        }
    }

    /// The entry WidgetKit would show at `now` (the latest not after `now`; the first entry when
    /// `now` precedes them all), drawn as `family`, followed by the reload policy and every entry,
    /// the shown one marked.
    public func render(timeline: Timeline, family: WidgetFamily, now: Date) -> String {
        let size = family.displaySize
        let shown = timeline.entry(at: now) ?? timeline.entries.first
        let generation = timeline.entries.first?.snapshotGeneration.map { "generation \($0)" } ?? "no snapshot"
        var lines = [
            "\(family.rawValue) \(glyphs.separator) \(Int(size.width))\(glyphs.times)\(Int(size.height)) pt "
                + "\(glyphs.separator) \(generation) \(glyphs.separator) now \(timeZone.timestamp(now))"
        ]
        if let shown { lines.append(render(entry: shown, family: family)) }
        switch timeline.policy {
        case .after(let date): lines.append("reload: after \(timeZone.timestamp(date))")
        case .atEnd: lines.append("reload: at end")
        case .never: lines.append("reload: never")
        }
        for entry in timeline.entries {
            let mark = entry == shown ? glyphs.marker : " "
            lines.append("\(mark) \(timeZone.timestamp(entry.date))  \(describe(entry))")
        }
        return lines.joined(separator: "\n")
    }

    /// "unlocked", "locked (expired)", "placeholder"; a stale entry adds ", stale: data as of"
    /// its snapshot's issue time, and an entry past the caller's `validUntil` says why it is
    /// locked (the snapshot is too old to trust by then).
    public func describe(_ entry: EntitlementEntry) -> String {
        var words: String
        switch entry.state {
        case .unlocked: words = "unlocked"
        case .locked(let paywall): words = "locked (\(paywall.reason.rawValue))"
        case .placeholder: words = "placeholder"
        }
        if entry.isPastValidity {
            let issued = entry.asOf.map { " from \(timeZone.timestamp($0))" } ?? ""
            words += ": the snapshot\(issued) is too old to trust by then; a newer one replaces this entry"
        } else if entry.isStale, let asOf = entry.asOf {
            words += ", stale: data as of \(timeZone.timestamp(asOf))"
        }
        return words
    }

    // MARK: - Layout per family

    private func systemLines(_ entry: EntitlementEntry, family: WidgetFamily, width: Int, rows: Int) -> [String] {
        let footer = staleFooter(entry, width: width)
        let budget = rows - (footer == nil ? 0 : 1)
        var body: [String]
        switch entry.state {
        case .placeholder:
            body = bars(width: width, rows: budget)
        case .unlocked(let content):
            body = [text(content.title), ""] + wrap(content.summary, width) + wrap(content.streak, width)
            if family == .systemLarge || family == .systemExtraLarge {
                body.append("")
                for habit in content.habits {
                    body += wrap("\(habit.doneToday ? glyphs.done : glyphs.notDone) \(habit.name)", width, maxLines: 1)
                }
            }
        case .locked(let paywall):
            let showMessage = family != .systemSmall
            let showLink = family == .systemLarge || family == .systemExtraLarge
            // The title takes the rows it needs, short of the call to action and the link below it.
            let action = wrap("\(glyphs.arrow) \(paywall.copy.callToAction)", width, maxLines: 2)
            let link = showLink ? wrapLink(paywall.deepLink, width, maxLines: 3) : []
            let title = wrap("\(glyphs.lock) \(paywall.copy.title)", width, maxLines: max(1, budget - action.count - link.count - 1))
            let room = budget - title.count - action.count - link.count - 2
            let message = showMessage && room > 0 ? wrap(paywall.copy.message, width, maxLines: room) : []
            body = title + (message.isEmpty ? [] : [""] + message)
            if body.count + action.count + link.count < budget { body.append("") }
            body += action + link
        }
        return fit(body, footer: footer, rows: rows, width: width)
    }

    private func rectangularLines(_ entry: EntitlementEntry, width: Int, rows: Int) -> [String] {
        let body: [String]
        switch entry.state {
        case .placeholder: body = bars(width: width, rows: rows)
        case .unlocked(let content): body = [text("\(content.title) \(content.progress) done"), text(content.streak)]
        case .locked(let paywall):
            body = [text("\(glyphs.lock) \(paywall.copy.title)"), text("\(glyphs.arrow) \(paywall.copy.callToAction)")]
        }
        return fit(body, footer: staleFooter(entry, width: width), rows: rows, width: width, markCut: false)
    }

    private func compactLines(_ entry: EntitlementEntry, width: Int, rows: Int) -> [String] {
        let body: [String]
        switch entry.state {
        case .placeholder: body = bars(width: width, rows: rows)
        case .unlocked(let content): body = [content.progress, "\(content.streakDays)d"]
        case .locked(let paywall): body = [glyphs.lock, text(paywall.copy.title)]
        }
        return fit(body, footer: staleFooter(entry, width: width), rows: rows, width: width, markCut: false)
    }

    private func inlineLine(_ entry: EntitlementEntry, width: Int) -> String {
        let forms: [String]
        switch entry.state {
        case .placeholder: return String(repeating: glyphs.bar, count: max(1, width * 3 / 5))
        case .unlocked(let content):
            forms = [
                "\(content.title) \(content.progress) \(glyphs.separator) \(content.streakDays)d streak",
                "\(content.title) \(content.progress)",
            ]
        case .locked(let paywall):
            forms = [
                "\(glyphs.lock) \(paywall.copy.title) \(glyphs.separator) \(paywall.copy.callToAction)",
                "\(glyphs.lock) \(paywall.copy.title)",
            ]
        }
        // The stale mark gets what is left after the shortest content form (ten cells at most) and a space.
        let footer = staleFooter(entry, width: width - min(TextMetrics.width(text(forms[forms.count - 1])), 10) - 1)
        let room = footer.map { width - TextMetrics.width($0) - 1 } ?? width
        let main = forms.map(text).first { TextMetrics.width($0) <= room }
            ?? TextMetrics.truncate(text(forms[forms.count - 1]), to: room, ellipsis: glyphs.ellipsis)
        return footer.map { main + " " + $0 } ?? main
    }

    /// `link` broken before `?` and `&` where it must be, at most `maxLines` lines.
    private func wrapLink(_ link: String, _ width: Int, maxLines: Int) -> [String] {
        var segments: [String] = [], current = ""
        for character in text(link) {
            if (character == "?" || character == "&"), !current.isEmpty { segments.append(current); current = "" }
            current.append(character)
        }
        if !current.isEmpty { segments.append(current) }
        var lines: [String] = [], line = ""
        for segment in segments {
            if TextMetrics.width(line + segment) <= width { line += segment; continue }
            if !line.isEmpty { lines.append(line) }
            line = segment
        }
        if !line.isEmpty { lines.append(line) }
        let hard = lines.flatMap { TextMetrics.wrap($0, to: width, ellipsis: glyphs.ellipsis) }
        guard hard.count > maxLines, maxLines > 0 else { return hard }
        var kept = Array(hard.prefix(maxLines))
        kept[maxLines - 1] = TextMetrics.withEllipsis(kept[maxLines - 1], limit: width, ellipsis: glyphs.ellipsis)
        return kept
    }

    // MARK: - Pieces

    /// The "as of" mark for a stale entry, local time and its offset, in the longest form that
    /// fits `width`; only the smallest boxes drop the offset.
    private func staleFooter(_ entry: EntitlementEntry, width: Int) -> String? {
        guard entry.isStale, let asOf = entry.asOf else { return nil }
        let clock = timeZone.clock(asOf), zone = timeZone.offset(at: asOf)
        let minutes = String(clock.prefix(5))
        let forms = [
            "as of \(clock) \(zone)", "as of \(minutes) \(zone)", "\(glyphs.approximately)\(minutes) \(zone)",
            "\(glyphs.approximately)\(minutes)", minutes,
        ]
        return forms.first { TextMetrics.width($0) <= width } ?? TextMetrics.prefix(minutes, cells: width)
    }

    /// Exactly `rows` lines: `body` and `footer` on the last row. When `body` is too long its last
    /// kept line ends with an ellipsis if `markCut` (prose); compact layouts drop whole lines.
    private func fit(_ body: [String], footer: String?, rows: Int, width: Int, markCut: Bool = true) -> [String] {
        guard rows > 0 else { return [] }
        let room = rows - (footer == nil ? 0 : 1)
        var lines = Array(body.prefix(max(0, room)))
        if markCut, body.count > room, let last = lines.indices.last {
            lines[last] = TextMetrics.withEllipsis(lines[last], limit: width, ellipsis: glyphs.ellipsis)
        }
        lines += Array(repeating: "", count: max(0, room - lines.count))
        if let footer { lines.append(footer) }
        return lines
    }

    /// Redacted bars of varying length, one per row, like WidgetKit's `.redacted(reason: .placeholder)`.
    private func bars(width: Int, rows: Int) -> [String] {
        let fractions = [0.5, 0.0, 0.9, 0.7, 0.0, 0.8, 0.6, 0.85, 0.55, 0.75]
        return (0..<max(0, rows)).map { row in
            let fraction = rows <= 2 ? [0.8, 0.5][row % 2] : fractions[row % fractions.count]
            return fraction == 0 ? "" : String(repeating: glyphs.bar, count: max(1, Int(Double(width) * fraction)))
        }
    }

    private func wrap(_ value: String, _ width: Int, maxLines: Int = .max) -> [String] {
        TextMetrics.wrap(text(value), to: width, maxLines: maxLines, ellipsis: glyphs.ellipsis)
    }

    /// Copy from outside (catalog, content) made displayable in the renderer's charset. Applied to
    /// copy only, never to composed lines, which are already in the charset.
    private func text(_ value: String) -> String {
        TextMetrics.displayable(value, charset: charset)
    }

    /// `inner` (each exactly `width - 2` cells) inside a frame `width` cells wide.
    private func frame(_ inner: [String], width: Int, round: Bool) -> [String] {
        let g = glyphs
        if round {
            let rule = String(repeating: g.horizontal, count: max(0, width - 4))
            return [" \(g.roundTopLeft)\(rule)\(g.roundTopRight)"]
                + inner.map { g.roundLeft + $0 + g.roundRight }
                + [" \(g.roundBottomLeft)\(rule)\(g.roundBottomRight)"]
        }
        let rule = String(repeating: g.horizontal, count: max(0, width - 2))
        return [g.topLeft + rule + g.topRight] + inner.map { g.vertical + $0 + g.vertical } + [g.bottomLeft + rule + g.bottomRight]
    }

    private func trimmed(_ lines: [String]) -> String {
        lines.map { line in
            var line = line
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }
}
