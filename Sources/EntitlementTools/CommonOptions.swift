import EntitlementDefaults
import CLISupport
import Entitlements
import FoundationEssentials
import SystemShims

/// `--container`, `--group` and `--catalog`, which every tool takes: each from its flag, else
/// its environment variable (`ENTITLEMENTS_CONTAINER`, `ENTITLEMENTS_GROUP`,
/// `ENTITLEMENTS_CATALOG`), else ``DefaultLocations`` (none of which depends on the working
/// directory). Declared once, as an option group; ``validate()`` resolves them.
package struct CommonOptions: OptionGroup {
    package static let defaultGroup = "group.com.irenews.geko"

    /// What `--container`, `--group` and `--catalog` gave; `nil` when not given.
    package var containerFlag: String?
    package var groupFlag: String?
    package var catalogFlag: String?

    /// The resolved container (``resolve(variable:locations:)``).
    package private(set) var containerPath = ResolvedPath(path: "", source: .flag("--container"))
    /// The group `--group` or `ENTITLEMENTS_GROUP` names, else ``defaultGroup``; a command that
    /// loads the catalog asks ``group(for:)`` instead, which lets the catalog's `appGroup` decide.
    package private(set) var group = defaultGroup
    /// Whether `--group` or `ENTITLEMENTS_GROUP` named ``group``.
    package private(set) var groupIsExplicit = false
    /// The resolved catalog (``resolve(variable:locations:)``).
    package private(set) var catalog = ResolvedPath(path: "", source: .flag("--catalog"))

    package init() {}

    package var container: String { containerPath.path }
    package var catalogPath: String { catalog.path }
    /// The layout of ``group`` (for a command that reads no catalog).
    package var layout: ContainerLayout { ContainerLayout(container: container, group: group) }

    /// The group: `--group`, else `ENTITLEMENTS_GROUP`, else the catalog's `appGroup`, else ``defaultGroup``.
    package func group(for catalog: Catalog?) -> String {
        groupIsExplicit ? group : catalog?.appGroup ?? Self.defaultGroup
    }

    /// The layout of ``group(for:)`` in the container.
    package func layout(for catalog: Catalog?) -> ContainerLayout {
        ContainerLayout(container: container, group: group(for: catalog))
    }

    /// Resolves the options from this process's environment and the default places.
    package mutating func validate() throws(UsageError) { try resolve() }

    /// Resolves the flags given: what no flag names comes from the variables `variable` gives
    /// by name (by default this process's environment, read one name at a time), then from
    /// `locations` (by default the places that environment and this executable give), which are
    /// looked at once, so container and catalog come from one place.
    package mutating func resolve(
        variable: (String) -> String? = ProcessEnvironment.value(of:), locations: (() -> DefaultLocations)? = nil
    ) throws(UsageError) {
        let explicitContainer = try Self.explicit(containerFlag, flag: "--container", variable: "ENTITLEMENTS_CONTAINER", in: variable)
        let explicitCatalog = try Self.explicit(catalogFlag, flag: "--catalog", variable: "ENTITLEMENTS_CATALOG", in: variable)
        if let explicitContainer, let explicitCatalog {
            (containerPath, catalog) = (explicitContainer, explicitCatalog)
        } else {
            let defaults = (locations?() ?? DefaultLocations(variable: variable)).resolve()
            (containerPath, catalog) = (explicitContainer ?? defaults.container, explicitCatalog ?? defaults.catalog)
        }
        let explicitGroup = groupFlag ?? variable("ENTITLEMENTS_GROUP").flatMap { $0.isEmpty ? nil : $0 }
        groupIsExplicit = explicitGroup != nil
        group = explicitGroup ?? Self.defaultGroup
        guard Self.isValidGroup(group) else {
            throw UsageError("invalid group '\(group)': use letters, digits, '.', '-' and '_' only")
        }
    }

    /// The path the flag or, without it, the environment variable names; `nil` for neither.
    private static func explicit(
        _ flagValue: String?, flag: String, variable name: String, in variable: (String) -> String?
    ) throws(UsageError) -> ResolvedPath? {
        if let flagValue {
            guard !flagValue.isEmpty else { throw UsageError("'\(flag)' must not be empty") }
            return ResolvedPath(path: flagValue, source: .flag(flag))
        }
        if let value = variable(name), !value.isEmpty { return ResolvedPath(path: value, source: .environment(name)) }
        return nil
    }

    /// A group id becomes a file name: no slashes, no leading dot, nothing empty.
    package static func isValidGroup(_ group: String) -> Bool { Catalog.isValidAppGroup(group) }

    package static let containerOption = CommandOption<Self>.option(
        "--container", value: "dir",
        "App-group container (env ENTITLEMENTS_CONTAINER). Default: the container of the place the default catalog comes from (see --catalog): $XDG_STATE_HOME/entitlements/container (~/.local/state/entitlements/container), /var/lib/entitlements/container or the package's Shared/Container; with no catalog anywhere, the user's (the system's when there is no home).",
        .text) { $0.containerFlag = $1 }
    package static let groupOption = CommandOption<Self>.option(
        "--group", value: "id",
        "App-group id; the shared file is <dir>/Library/Preferences/<id>.plist (env ENTITLEMENTS_GROUP; else the catalog's appGroup; default \(defaultGroup)).",
        .text) { $0.groupFlag = $1 }
    package static let catalogOption = CommandOption<Self>.option(
        "--catalog", value: "file",
        "Catalog JSON (env ENTITLEMENTS_CATALOG). Default: the first of these that exists: $XDG_CONFIG_HOME/entitlements/Catalog.json (~/.config/entitlements/Catalog.json); /etc/entitlements/Catalog.json; for a tool run from its package's .build, the package's Shared/Catalog.json.",
        .text) { $0.catalogFlag = $1 }

    /// The three options as every command that reads the container declares them.
    package static let options = [containerOption, groupOption, catalogOption]

    /// The three options for a command that reads no container but accepts the same command
    /// line as the others (`evaluate`): `--container` and `--group` are parsed and not used.
    package static func options(ignoringContainerIn command: String) -> [CommandOption<Self>] {
        [
            containerOption.help("Accepted like every tool's, unused: \(command) reads no container."),
            groupOption.help("Accepted like every tool's, unused."), catalogOption,
        ]
    }

    /// The three options for a command that reads no catalog (`journal-repair`): `--catalog` is
    /// accepted and ignored.
    package static func options(ignoringCatalogIn command: String) -> [CommandOption<Self>] {
        [
            containerOption,
            groupOption.help("App-group id; the shared file is <dir>/Library/Preferences/<id>.plist (env ENTITLEMENTS_GROUP; default \(defaultGroup))."),
            catalogOption.help("Accepted like every tool's, unused: \(command) reads no catalog."),
        ]
    }
}

/// Loads the catalog the command line, the environment or the defaults name, mapping failures
/// onto the contract's codes. A missing catalog names the path and where it came from.
package enum CatalogLoading {
    /// The catalog; a ``UsageError`` when it is missing, a ``ToolError`` when it is refused (exit
    /// 65) or could not be read (``ExitCode/init(failedCall:)``: a failing system call, such as
    /// `EMFILE`, says nothing of its data).
    package static func load(_ catalog: ResolvedPath) throws -> Catalog {
        try requireExists(catalog)
        do { return try Catalog.load(path: catalog.path) } catch {
            throw ToolError(error.systemError.map { ExitCode(failedCall: Errno(rawValue: $0)) } ?? .dataError, "\(error)")
        }
    }

    /// A missing `catalog` is a usage error (exit 64, like every other): one line naming the
    /// path and where it came from.
    package static func requireExists(_ catalog: ResolvedPath) throws(UsageError) {
        guard FileSystem.exists(atPath: catalog.path) else {
            if catalog.alsoTried.isEmpty {
                throw UsageError("\(catalog.path): catalog not found (\(catalog.origin))")
            }
            let tried = catalog.alsoTried.map { "\($0.catalog) (\($0.name))" }.joined(separator: ", ")
            throw UsageError("catalog not found: tried \(tried); pass --catalog FILE or set ENTITLEMENTS_CATALOG")
        }
    }
}
