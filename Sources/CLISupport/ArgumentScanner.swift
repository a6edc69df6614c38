/// A small, strict command-line scanner over the options a command declares (its
/// ``CommandConfiguration/options``): `--name value`, `--name=value`, repeated options, flags,
/// positionals and `--`. Options may stand anywhere before `--`. Every argument must be
/// consumed; ``finish()`` reports the first one nobody asked for, with a suggestion.
public struct ArgumentScanner: Sendable {
    private var remaining: [String?]
    private var positionalsOnlyFrom: Int
    private let declared: [String: CommandConfiguration.Option]
    /// Every option name the command asked for, declared or not: a test compares it with the
    /// declared options so that help and parser cannot drift apart.
    public private(set) var askedOptions: Set<String> = []

    /// Scans `arguments` for a command that declares `options`.
    public init(_ arguments: [String], options: [CommandConfiguration.Option]) {
        let separator = arguments.firstIndex(of: "--")
        var items: [String?] = arguments
        if let separator { items.remove(at: separator) }
        remaining = items
        positionalsOnlyFrom = separator ?? items.count
        declared = Dictionary(options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether `-h` or `--help` appears before `--`.
    public var wantsHelp: Bool {
        remaining[..<positionalsOnlyFrom].contains { $0 == "-h" || $0 == "--help" }
    }

    /// Whether `--version` appears before `--`.
    public var wantsVersion: Bool {
        remaining[..<positionalsOnlyFrom].contains { $0 == "--version" }
    }

    /// Removes and returns every value of the option `name` (repeatable), in order.
    public mutating func values(_ name: String) throws(UsageError) -> [String] {
        askedOptions.insert(name)
        var found: [String] = []
        var index = 0
        while index < positionalsOnlyFrom {
            guard let argument = remaining[index] else { index += 1; continue }
            if argument == name {
                guard index + 1 < positionalsOnlyFrom, let value = remaining[index + 1] else {
                    throw UsageError("missing value for '\(name)'")
                }
                found.append(value)
                remaining[index] = nil
                remaining[index + 1] = nil
                index += 2
            } else if argument.hasPrefix(name + "=") {
                found.append(String(argument.dropFirst(name.count + 1)))
                remaining[index] = nil
                index += 1
            } else {
                index += 1
            }
        }
        return found
    }

    /// Removes and returns the option `name`; an error when it is given more than once.
    public mutating func value(_ name: String) throws(UsageError) -> String? {
        let all = try values(name)
        guard all.count <= 1 else { throw UsageError("'\(name)' given more than once") }
        return all.first
    }

    /// Removes and returns the option `name` parsed by `parse`; `what` names the expected form in the error.
    public mutating func value<T>(_ name: String, as what: String, _ parse: (String) -> T?) throws(UsageError) -> T? {
        guard let text = try value(name) else { return nil }
        guard let parsed = parse(text) else { throw UsageError("invalid value '\(text)' for '\(name)': expected \(what)") }
        return parsed
    }

    /// Removes the flag `name` and says whether it was present.
    public mutating func flag(_ name: String) -> Bool {
        askedOptions.insert(name)
        var present = false
        for index in 0..<positionalsOnlyFrom where remaining[index] == name {
            remaining[index] = nil
            present = true
        }
        return present
    }

    /// Removes and returns the remaining arguments that are not options. Call after all options
    /// and flags; an unknown option (`-x`, `--xyz`) is an error, except `-` (standard input).
    public mutating func positionals() throws(UsageError) -> [String] {
        var result: [String] = []
        for index in remaining.indices {
            guard let argument = remaining[index] else { continue }
            if index < positionalsOnlyFrom, argument.hasPrefix("-"), argument != "-" {
                throw unknownOption(argument)
            }
            result.append(argument)
            remaining[index] = nil
        }
        return result
    }

    /// Removes and returns the one optional positional argument (`FILE`, `-`), or `nil`; more
    /// than one is a usage error naming `name`.
    public mutating func optionalPositional(_ name: String) throws(UsageError) -> String? {
        let all = try positionals()
        guard all.count <= 1 else { throw UsageError("expected at most one \(name), got \(all.count)") }
        return all.first
    }

    /// Fails on the first argument nobody consumed.
    public func finish() throws(UsageError) {
        for (index, argument) in remaining.enumerated() {
            guard let argument else { continue }
            if index < positionalsOnlyFrom, argument.hasPrefix("-"), argument != "-" {
                throw unknownOption(argument)
            }
            throw UsageError("unexpected argument '\(argument)'")
        }
    }

    private func unknownOption(_ argument: String) -> UsageError {
        let name = argument.split(separator: "=", maxSplits: 1).first.map(String.init) ?? argument
        let known = declared.keys.sorted() + ["--help", "--version"]
        return UsageError("unknown option '\(name)'" + Suggestion.didYouMean(name, among: known))
    }

    /// The index of the first positional argument of `arguments` (a subcommand's name), skipping
    /// options and the values of `valueOptions` given as `--name value`; `nil` when there is none.
    public static func firstPositional(in arguments: [String], valueOptions: Set<String>) -> Int? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { return index + 1 < arguments.count ? index + 1 : nil }
            if !argument.hasPrefix("-") || argument == "-" { return index }
            index += valueOptions.contains(argument) ? 2 : 1
        }
        return nil
    }
}
