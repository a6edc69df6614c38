/// One option of the command (or option group) `Root`, declared once, in the manner of
/// swift-argument-parser's `@Option` and `@Flag`: how it is spelt, the placeholder of its value,
/// its help, how its text becomes a value, and where the value goes (`{ $0.count = $1 }`, which
/// sets the property of `Root` that holds it). The help screen, the usage line, the scanner and
/// the suggestions read the declaration; the command reads the parsed value from its property.
/// An option that is not given leaves the property at the value `Root.init()` gave it, its
/// default.
///
/// The value is set by a closure rather than through a key path: a key path is an object the
/// runtime builds, with its generic class, the first time it is used, and every tool declares its
/// options at start-up.
///
/// A group (``group(_:_:)``) is one declaration of several options that several commands share,
/// with a check of its own once they are read (``OptionGroup/validate()``).
package struct CommandOption<Root>: Sendable {
    /// The option as help and the scanner see it; several for a group.
    package let specs: [CommandConfiguration.Option]
    /// Reads the option from the scanner into the command.
    let read: @Sendable (inout ArgumentScanner, inout Root) throws(UsageError) -> Void

    private init(
        _ specs: [CommandConfiguration.Option], read: @escaping @Sendable (inout ArgumentScanner, inout Root) throws(UsageError) -> Void
    ) {
        self.specs = specs
        self.read = read
    }

    /// A flag: `set` stores `true` when it is given.
    package static func flag(_ name: String, _ help: String, _ set: @escaping @Sendable (inout Root, Bool) -> Void) -> Self {
        let spec = CommandConfiguration.Option(name, help)
        return Self([spec]) { scanner, root throws(UsageError) in
            if scanner.flag(spec) { set(&root, true) }
        }
    }

    /// An option with a value, which `parser` turns into the value `set` stores; given at most once.
    package static func option<Value>(
        _ name: String, value placeholder: String, _ help: String, _ parser: ValueParser<Value>,
        _ set: @escaping @Sendable (inout Root, Value) -> Void
    ) -> Self {
        let spec = CommandConfiguration.Option(name, value: placeholder, help)
        return Self([spec]) { scanner, root throws(UsageError) in
            if let text = try scanner.value(spec) { set(&root, try parser.parse(text, for: name)) }
        }
    }

    /// An option that may be given more than once; `set` stores every value, in order.
    package static func repeatable<Value>(
        _ name: String, value placeholder: String, _ help: String, _ parser: ValueParser<Value>,
        _ set: @escaping @Sendable (inout Root, [Value]) -> Void
    ) -> Self {
        let spec = CommandConfiguration.Option(name, value: placeholder, repeatable: true, help)
        return Self([spec]) { scanner, root throws(UsageError) in
            var values: [Value] = []
            for text in try scanner.values(spec) { values.append(try parser.parse(text, for: name)) }
            if !values.isEmpty { set(&root, values) }
        }
    }

    /// The options of a group (by default every one it declares), read into `Group()`, then its
    /// ``OptionGroup/validate()``; `set` stores the group.
    package static func group<Group: OptionGroup>(
        _ options: [CommandOption<Group>] = Group.options, _ set: @escaping @Sendable (inout Root, Group) -> Void
    ) -> Self {
        Self(CommandOption<Group>.specs(of: options)) { scanner, root throws(UsageError) in
            var group = Group()
            for option in options { try option.read(&scanner, &group) }
            try group.validate()
            set(&root, group)
        }
    }

    /// The same option with another help text (a command that accepts a shared option but uses
    /// it differently, or not at all).
    package func help(_ help: String) -> Self {
        var specs = specs
        for index in specs.indices { specs[index].help = help }
        return Self(specs, read: read)
    }

    /// Every option `options` declare, in order.
    package static func specs(of options: [Self]) -> [CommandConfiguration.Option] {
        var specs: [CommandConfiguration.Option] = []
        for option in options { specs += option.specs }
        return specs
    }
}

/// Options several commands share, declared once (``CommandOption/group(_:_:)``), like
/// swift-argument-parser's `@OptionGroup`.
package protocol OptionGroup: Sendable {
    /// Every option at its default.
    init()
    /// The group's options, in the order help lists them.
    static var options: [CommandOption<Self>] { get }
    /// Checks the options read together, and derives what they decide; throws ``UsageError``.
    mutating func validate() throws(UsageError)
}

extension OptionGroup {
    package mutating func validate() throws(UsageError) {}
}
