/// A small, strict command-line scanner over the options a command declares (its
/// ``CommandOption``s) and the built-in ones (``CommandConfiguration/builtInOptions``):
/// `--name value`, `--name=value`, repeated options, flags, positionals and `--`. Options may
/// stand anywhere before `--`; after it every word is positional.
///
/// Options are read through their declarations (``CommandOption``), so only a declared option
/// can be read. Every argument must be consumed; ``finish()`` reports the first one nobody
/// asked for, with a suggestion.
package struct ArgumentScanner: Sendable {
    private let arguments: [String]
    /// Which of ``arguments`` a read has taken (and `--`, which no read returns). A flag per
    /// argument rather than an array of optional strings, whose generic metadata every tool
    /// would build at start-up.
    private var consumed: [Bool]
    /// The index of `--` in ``arguments``, or its count.
    private let separator: Int
    /// Every declared and built-in option, by every spelling.
    private let declared: [String: CommandConfiguration.Option]
    /// Scans `arguments` for a command that declares `options`.
    package init(_ arguments: [String], options: [CommandConfiguration.Option]) {
        let separator = arguments.firstIndex(of: "--") ?? arguments.count
        self.arguments = arguments
        self.separator = separator
        var consumed = [Bool](repeating: false, count: arguments.count)
        if separator < arguments.count { consumed[separator] = true }
        self.consumed = consumed
        // Sized once: a group's scanner knows every subcommand's options, and growing the table
        // one resize at a time cost more than filling it.
        let builtIn = CommandConfiguration.builtInOptions
        var declared = [String: CommandConfiguration.Option](minimumCapacity: 2 * (options.count + builtIn.count))
        for option in options + builtIn {
            for spelling in option.spellings where !declared.keys.contains(spelling) { declared[spelling] = option }
        }
        self.declared = declared
    }

    /// Whether `-h` or `--help` appears before `--`.
    package var wantsHelp: Bool { containsBeforeSeparator(CommandConfiguration.helpOption) }

    /// Whether `--version` appears before `--`.
    package var wantsVersion: Bool { containsBeforeSeparator(CommandConfiguration.versionOption) }

    private func containsBeforeSeparator(_ option: CommandConfiguration.Option) -> Bool {
        let spellings = option.spellings
        return (0..<separator).contains { !consumed[$0] && spellings.contains(arguments[$0]) }
    }

    /// The first positional argument before `--` (a subcommand's name), skipping declared
    /// options and the values of those that take one, and the first problem met on the way there
    /// (an unknown option, whose value cannot be skipped, ends the search). Reading the
    /// arguments once for both keeps "which word is the subcommand" and "which option is wrong"
    /// from disagreeing.
    package func firstPositional() -> (index: Int?, problem: UsageError?) {
        var index = 0
        while index < separator {
            let argument = arguments[index]
            guard Self.looksLikeOption(argument) else { return (index, nil) }
            let (name, inlineValue) = Self.split(argument)
            guard let option = declared[name] else { return (nil, unknownOption(name)) }
            if option.takesValue {
                if inlineValue == nil {
                    guard index + 1 < separator else { return (nil, UsageError("missing value for '\(name)'")) }
                    index += 1
                }
            } else if inlineValue != nil {
                return (nil, UsageError("'\(name)' takes no value"))
            }
            index += 1
        }
        return (nil, nil)
    }

    /// The arguments without the one at `index` (a subcommand's name), for the subcommand.
    package func arguments(removingAt index: Int) -> [String] {
        var rest = arguments
        rest.remove(at: index)
        return rest
    }

    /// Removes and returns every value of the value option `option`, in order.
    mutating func values(_ option: CommandConfiguration.Option) throws(UsageError) -> [String] {
        let name = option.name
        var found: [String] = []
        var index = 0
        while index < separator {
            guard let argument = remaining(at: index) else { index += 1; continue }
            if argument == name {
                guard index + 1 < separator, let value = remaining(at: index + 1) else {
                    throw UsageError("missing value for '\(name)'")
                }
                found.append(value)
                consumed[index] = true
                consumed[index + 1] = true
                index += 2
            } else if argument.hasPrefix(name + "=") {
                found.append(String(argument.dropFirst(name.count + 1)))
                consumed[index] = true
                index += 1
            } else {
                index += 1
            }
        }
        return found
    }

    /// Removes the value option `option` and returns its value, `nil` when it is not given; an
    /// error when it is given more than once.
    mutating func value(_ option: CommandConfiguration.Option) throws(UsageError) -> String? {
        let all = try values(option)
        guard all.count <= 1 else { throw UsageError("'\(option.name)' given more than once") }
        return all.first
    }

    /// Removes the flag `option` and says whether it was present.
    mutating func flag(_ option: CommandConfiguration.Option) -> Bool {
        var present = false
        for index in 0..<separator where remaining(at: index) == option.name {
            consumed[index] = true
            present = true
        }
        return present
    }

    /// Removes and returns the remaining arguments that are not options. Call after all options
    /// and flags; an unknown option (`-x`, `--xyz`) is an error, except `-` (standard input).
    package mutating func positionals() throws(UsageError) -> [String] {
        var result: [String] = []
        for index in arguments.indices {
            guard let argument = remaining(at: index) else { continue }
            if index < separator, Self.looksLikeOption(argument) { throw unexpectedOption(argument) }
            result.append(argument)
            consumed[index] = true
        }
        return result
    }

    /// Removes and returns the one optional positional argument (`FILE`, `-`), or `nil`; more
    /// than one is a usage error naming `name`.
    package mutating func optionalPositional(_ name: String) throws(UsageError) -> String? {
        let all = try positionals()
        guard all.count <= 1 else { throw UsageError("expected at most one \(name), got \(all.count)") }
        return all.first
    }

    /// Fails on the first argument nobody consumed.
    package func finish() throws(UsageError) {
        for index in arguments.indices {
            guard let argument = remaining(at: index) else { continue }
            if index < separator, Self.looksLikeOption(argument) { throw unexpectedOption(argument) }
            throw UsageError("unexpected argument '\(argument)'")
        }
    }

    /// The argument at `index` unless a read took it (or it is `--`).
    private func remaining(at index: Int) -> String? { consumed[index] ? nil : arguments[index] }

    /// An option-like argument left over: a declared flag given a value, or an unknown name.
    private func unexpectedOption(_ argument: String) -> UsageError {
        let (name, inlineValue) = Self.split(argument)
        if let option = declared[name], !option.takesValue, inlineValue != nil {
            return UsageError("'\(name)' takes no value")
        }
        return unknownOption(name)
    }

    private func unknownOption(_ name: String) -> UsageError {
        UsageError("unknown option '\(name)'" + Suggestion.didYouMean(name, among: declared.keys.sorted()))
    }

    /// Whether `argument` is spelt as an option (`-x`, `--name`, `--name=value`; `-` alone is a
    /// positional, standard input).
    static func looksLikeOption(_ argument: String) -> Bool { argument.hasPrefix("-") && argument != "-" }

    /// `--name=value` as its name and value; any other argument as itself and `nil`.
    private static func split(_ argument: String) -> (name: String, value: String?) {
        guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }
}
