/// Which characters text rendering may use.
public enum TextCharset: String, Sendable, Hashable, CaseIterable {
    /// Box drawing, block elements and a few symbols (needs a UTF-8 terminal).
    case unicode
    /// Printable ASCII only (`+-|`, `#`, `...`); any other character in catalog copy is
    /// transliterated or replaced by `?`. For non-UTF-8 terminals and `--ascii`.
    case ascii
}

/// The glyphs one charset draws with. Package-internal so the watch renderer shares them.
package struct Glyphs: Sendable {
    package let horizontal, vertical: String
    package let topLeft, topRight, bottomLeft, bottomRight: String
    package let roundTopLeft, roundTopRight, roundBottomLeft, roundBottomRight, roundLeft, roundRight: String
    package let lock, bar, ellipsis, arrow, done, notDone, approximately, times, separator, marker: String
    /// Opens a heading line (`━━ 2. The user starts…`).
    package let heading: String

    package init(_ charset: TextCharset) {
        switch charset {
        case .unicode:
            (horizontal, vertical) = ("─", "│")
            (topLeft, topRight, bottomLeft, bottomRight) = ("┌", "┐", "└", "┘")
            (roundTopLeft, roundTopRight, roundBottomLeft, roundBottomRight) = ("╭", "╮", "╰", "╯")
            (roundLeft, roundRight) = ("│", "│")
            (lock, bar, ellipsis, arrow) = ("🔒", "█", "…", "›")
            (done, notDone, approximately, times, separator, marker) = ("✓", "○", "≈", "×", "·", "▸")
            heading = "━━"
        case .ascii:
            (horizontal, vertical) = ("-", "|")
            (topLeft, topRight, bottomLeft, bottomRight) = ("+", "+", "+", "+")
            (roundTopLeft, roundTopRight, roundBottomLeft, roundBottomRight) = (".", ".", "'", "'")
            (roundLeft, roundRight) = ("(", ")")
            (lock, bar, ellipsis, arrow) = ("[L]", "#", "...", ">")
            (done, notDone, approximately, times, separator, marker) = ("x", "o", "~", "x", "-", ">")
            heading = "=="
        }
    }
}
