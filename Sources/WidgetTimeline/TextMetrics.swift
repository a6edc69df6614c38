/// Terminal-cell arithmetic for the text renderers: display width, truncation, wrapping and
/// transliteration to ASCII. Package-internal.
package enum TextMetrics {
    /// Terminal cells one character occupies: 2 for East Asian wide and emoji, 0 for combining
    /// marks and zero-width characters, 1 otherwise. An approximation of `wcwidth` that is exact
    /// for the characters this package prints.
    package static func width(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        let v = scalar.value
        switch v {
        case 0..<0x20, 0x7F..<0xA0, 0x0300...0x036F, 0x200B...0x200F, 0xFE00...0xFE0F: return 0
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
             0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
             0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default: return 1
        }
    }

    package static func width(_ text: String) -> Int { text.reduce(0) { $0 + width($1) } }

    /// `text` if it fits in `limit` cells, otherwise as much of it as fits together with
    /// `ellipsis` (cut after a whole word, see ``cut(_:cells:)``), followed by `ellipsis`. Never
    /// wider than `limit`.
    package static func truncate(_ text: String, to limit: Int, ellipsis: String) -> String {
        guard limit > 0 else { return "" }
        if width(text) <= limit { return text }
        let mark = width(ellipsis) <= limit ? ellipsis : ""
        return cut(text, cells: limit - width(mark)) + mark
    }

    /// The part of `text` kept when it is cut to `cells` before an ellipsis: its longest prefix
    /// that fits, shortened to end after a whole word when that keeps at least half the cells (a
    /// word too long for that is cut inside), with no trailing space.
    package static func cut(_ text: String, cells: Int) -> String {
        let head = prefix(text, cells: cells)
        let endsWord = head.count == text.count || text.dropFirst(head.count).first == " "
        if !endsWord, let space = head.lastIndex(of: " ") {
            let words = trailingSpaceTrimmed(String(head[..<space]))
            if width(words) * 2 >= cells { return words }
        }
        return trailingSpaceTrimmed(head)
    }

    private static func trailingSpaceTrimmed(_ text: String) -> String {
        var text = text
        while text.last == " " { text.removeLast() }
        return text
    }

    /// The longest prefix of `text` that fits in `cells`.
    package static func prefix(_ text: String, cells: Int) -> String {
        var result = "", used = 0
        for character in text {
            let w = width(character)
            if used + w > cells { break }
            result.append(character)
            used += w
        }
        return result
    }

    /// Greedy word wrap to `limit` cells; a word longer than a line is split. At most `maxLines`
    /// lines: when text is left over, the last line ends with `ellipsis`.
    package static func wrap(_ text: String, to limit: Int, maxLines: Int = .max, ellipsis: String) -> [String] {
        guard limit > 0, maxLines > 0 else { return [] }
        var lines: [String] = [], current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true).map(String.init) {
            var word = word
            let candidate = current.isEmpty ? word : current + " " + word
            if width(candidate) <= limit { current = candidate; continue }
            if !current.isEmpty { lines.append(current); current = "" }
            while width(word) > limit {
                let head = prefix(word, cells: limit)
                guard !head.isEmpty else { break }
                lines.append(head)
                word.removeFirst(head.count)
            }
            current = word
        }
        if !current.isEmpty { lines.append(current) }
        guard lines.count > maxLines else { return lines }
        var kept = Array(lines.prefix(maxLines))
        kept[maxLines - 1] = withEllipsis(kept[maxLines - 1], limit: limit, ellipsis: ellipsis)
        return kept
    }

    /// `text` shortened as needed so that `ellipsis` fits after it within `limit`, then `ellipsis`:
    /// marks a line after which something was left out. A `text` already ending in `ellipsis` is returned as is.
    package static func withEllipsis(_ text: String, limit: Int, ellipsis: String) -> String {
        guard width(ellipsis) <= limit else { return prefix(text, cells: limit) }
        if text.hasSuffix(ellipsis) { return text }
        return cut(text, cells: limit - width(ellipsis)) + ellipsis
    }

    /// `text` centred in `limit` cells (extra space goes right), truncated first if too wide.
    package static func center(_ text: String, in limit: Int, ellipsis: String) -> String {
        let fitted = truncate(text, to: limit, ellipsis: ellipsis)
        let spare = limit - width(fitted)
        return String(repeating: " ", count: spare / 2) + fitted + String(repeating: " ", count: spare - spare / 2)
    }

    /// `text` padded with spaces on the right to exactly `limit` cells, truncated first if too wide.
    package static func pad(_ text: String, to limit: Int, ellipsis: String) -> String {
        let fitted = truncate(text, to: limit, ellipsis: ellipsis)
        return fitted + String(repeating: " ", count: max(0, limit - width(fitted)))
    }

    /// `text` as one line of `charset`: control characters (line breaks and tabs included, which
    /// would break a box apart) become spaces, and in ASCII everything else is transliterated
    /// (see ``ascii(_:)``). For copy that comes from outside (a catalog), once, before layout.
    package static func displayable(_ text: String, charset: TextCharset) -> String {
        switch charset {
        case .ascii: return ascii(text)
        case .unicode:
            guard text.unicodeScalars.contains(where: isControl) else { return text }
            var out = ""
            for scalar in text.unicodeScalars { out.unicodeScalars.append(isControl(scalar) ? " " : scalar) }
            return out
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    /// Printable ASCII for `text`: common typographic characters are transliterated, control
    /// characters become spaces, anything else becomes `?`. Meant for one line of copy: a line
    /// break in `text` becomes a space, so never pass it lines already joined.
    package static func ascii(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x20...0x7E: out.unicodeScalars.append(scalar)
            case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: out += " "
            case 0x2026: out += "..."
            case 0x00B7, 0x2022, 0x2013, 0x2014, 0x2212: out += "-"
            case 0x2018, 0x2019: out += "'"
            case 0x201C, 0x201D: out += "\""
            case 0x203A, 0x2192, 0x25B8: out += ">"
            case 0x2039, 0x2190: out += "<"
            case 0x00D7: out += "x"
            case 0x00A0, 0x2009, 0x202F: out += " "
            case 0x0300...0x036F, 0xFE00...0xFE0F, 0x200B...0x200F: break
            default: out += "?"
            }
        }
        return out
    }
}
