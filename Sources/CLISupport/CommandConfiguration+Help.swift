/// The help screen in swift-argument-parser's shape: OVERVIEW, the discussion, USAGE,
/// ARGUMENTS, OPTIONS, SUBCOMMANDS; names in a first column, descriptions aligned in a second,
/// wrapped at ``HelpLayout/width`` columns.
public enum HelpLayout {
    /// Total width of the help screen (swift-argument-parser's default).
    public static let width = 80
    /// Column where descriptions start; a longer name puts its description on the next line.
    public static let descriptionColumn = 26
}

extension CommandConfiguration {
    /// The usage line (without `USAGE: `), wrapped so continuation lines align after the command name.
    public var usage: String {
        let prefix = "USAGE: "
        let indent = String(repeating: " ", count: prefix.count + commandName.count + 1)
        var lines: [String] = []
        var line = commandName
        var lineHasWord = false
        for word in usageWords {
            let available = HelpLayout.width - (lines.isEmpty ? prefix.count : 0)
            if lineHasWord, line.count + 1 + word.count > available {
                lines.append(line)
                line = indent + word
            } else {
                line += (line == indent ? "" : " ") + word
            }
            lineHasWord = true
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The full help screen, ending with a newline.
    public var helpText: String {
        var text = "OVERVIEW: " + Self.wrap(abstract, width: HelpLayout.width, firstIndent: 10, indent: 0).dropFirst(10) + "\n"
        if !discussion.isEmpty {
            for paragraph in discussion.split(separator: "\n", omittingEmptySubsequences: false) {
                text += "\n" + Self.wrap(String(paragraph), width: HelpLayout.width, firstIndent: 0, indent: 0) + "\n"
            }
        }
        text += "\nUSAGE: \(usage)\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n" + arguments.map { Self.row("<\($0.name)>", $0.help) }.joined()
        }
        text += "\nOPTIONS:\n" + (options + Self.builtInOptions).map { Self.row($0.label, $0.help) }.joined()
        if !subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n" + subcommands.map { Self.row($0.name, $0.abstract) }.joined()
            text += "\n  See '\(commandName) help <subcommand>' for detailed help.\n"
        }
        return text
    }

    /// One two-column row: `  name` padded to the description column, the description wrapped
    /// under it. A name too long for the column puts the description on the next line.
    static func row(_ name: String, _ description: String) -> String {
        let column = HelpLayout.descriptionColumn
        let body = wrap(description, width: HelpLayout.width, firstIndent: column, indent: column)
        let head = "  " + name
        if head.count + 2 <= column {
            return head + String(body.dropFirst(head.count)) + "\n"
        }
        return head + "\n" + body + "\n"
    }

    /// `text` broken at spaces into lines of at most `width` columns (a longer word stands
    /// alone), the first indented by `firstIndent` spaces and the rest by `indent`.
    static func wrap(_ text: String, width: Int, firstIndent: Int, indent: Int) -> String {
        var lines: [String] = []
        var line = String(repeating: " ", count: firstIndent)
        var lineHasWord = false
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if lineHasWord, line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                lineHasWord = false
            }
            line += (lineHasWord ? " " : "") + word
            lineHasWord = true
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
