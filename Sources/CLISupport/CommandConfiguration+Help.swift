import SystemShims

/// The help screen in swift-argument-parser's shape: OVERVIEW, the discussion, USAGE,
/// ARGUMENTS, OPTIONS, SUBCOMMANDS; names in a first column, descriptions aligned in a second,
/// wrapped at the terminal's width (``HelpLayout/width(environment:)``).
package enum HelpLayout {
    /// The width when `COLUMNS` does not give one (swift-argument-parser's default).
    package static let defaultWidth = 80
    /// The narrowest width honoured: below it the description column would leave no room.
    package static let minimumWidth = 40
    /// Column where descriptions start; a longer name puts its description on the next line.
    package static let descriptionColumn = 26

    /// The width of the help screen: `COLUMNS` when it is a whole number of at least
    /// ``minimumWidth``, else ``defaultWidth``.
    package static func width(environment: [String: String]) -> Int {
        guard let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns >= minimumWidth else { return defaultWidth }
        return columns
    }

    /// The width for this process's environment.
    package static var width: Int { width(environment: ProcessEnvironment.current) }
}

extension CommandConfiguration {
    /// The usage line (without `USAGE: `) of a command with `options` (or a group of
    /// `subcommands`), wrapped at `width` columns so continuation lines align after the command name.
    package func usage(options: [Option], subcommands: [Subcommand] = [], width: Int = HelpLayout.width) -> String {
        let prefix = "USAGE: "
        let indent = String(repeating: " ", count: prefix.count + commandName.count + 1)
        var lines: [String] = []
        var line = commandName
        for word in usageWords(options: options, subcommands: subcommands) {
            let available = width - (lines.isEmpty ? prefix.count : 0)
            if line.count + 1 + word.count > available {
                lines.append(line)
                line = indent + word
            } else {
                line += " " + word
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }

    /// The full help screen of a command with `options` (or a group of `subcommands`), wrapped
    /// at `width` columns, ending with a newline.
    package func helpText(options: [Option], subcommands: [Subcommand] = [], width: Int = HelpLayout.width) -> String {
        var text = "OVERVIEW: " + Self.wrap(abstract, width: width, firstIndent: 10, indent: 0).dropFirst(10) + "\n"
        if !discussion.isEmpty {
            for paragraph in discussion.split(separator: "\n", omittingEmptySubsequences: false) {
                text += "\n" + Self.wrap(String(paragraph), width: width, firstIndent: 0, indent: 0) + "\n"
            }
        }
        text += "\nUSAGE: \(usage(options: options, subcommands: subcommands, width: width))\n"
        if !arguments.isEmpty {
            text += "\nARGUMENTS:\n" + arguments.map { Self.row("<\($0.name)>", $0.help, width: width) }.joined()
        }
        text += "\nOPTIONS:\n" + (options + Self.builtInOptions).map { Self.row($0.label, $0.help, width: width) }.joined()
        if !subcommands.isEmpty {
            text += "\nSUBCOMMANDS:\n" + subcommands.map { Self.row($0.name, $0.abstract, width: width) }.joined()
            text += "\n  See '\(commandName) help <subcommand>' for detailed help.\n"
        }
        return text
    }

    /// One two-column row: `  name` padded to the description column, the description wrapped
    /// under it. A name too long for the column puts the description on the next line.
    static func row(_ name: String, _ description: String, width: Int) -> String {
        let column = HelpLayout.descriptionColumn
        let body = wrap(description, width: width, firstIndent: column, indent: column)
        let head = "  " + name
        if head.count + 2 <= column {
            return head + String(body.dropFirst(head.count)) + "\n"
        }
        return head + "\n" + body + "\n"
    }

    /// `text` broken at spaces into lines of at most `width` columns, the first indented by
    /// `firstIndent` spaces and the rest by `indent`. A quoted example (`'tool --flag X'`) is
    /// never broken; it, or a word, longer than a line stands alone.
    static func wrap(_ text: String, width: Int, firstIndent: Int, indent: Int) -> String {
        var lines: [String] = []
        var line = String(repeating: " ", count: firstIndent)
        var lineHasWord = false
        for word in unbreakableRuns(text) {
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

    /// The space-separated words of `text`, with the words of a quoted example joined into one:
    /// a quote opens at the start of a word and closes at a quote not followed by a letter (so
    /// `package's` and `tools'` are plain words).
    static func unbreakableRuns(_ text: String) -> [String] {
        var runs: [String] = []
        var open: [Substring] = []
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if open.isEmpty, !word.hasPrefix("'") || closesQuote(word.dropFirst()) {
                runs.append(String(word))
            } else if open.isEmpty {
                open = [word]
            } else {
                open.append(word)
                if closesQuote(word) {
                    runs.append(open.joined(separator: " "))
                    open = []
                }
            }
        }
        if !open.isEmpty { runs.append(contentsOf: open.map(String.init)) }
        return runs
    }

    /// Whether `word` holds a closing quote: one not followed by a letter or a digit.
    private static func closesQuote(_ word: Substring) -> Bool {
        word.indices.contains { index in
            guard word[index] == "'" else { return false }
            let next = word.index(after: index)
            return next == word.endIndex || !(word[next].isLetter || word[next].isNumber)
        }
    }
}
