import Broker
import CLISupport
import EntitlementModel
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--container`, `--group` and `--catalog`, which every tool takes: each from its flag, else
/// its environment variable (`ENTITLEMENTS_CONTAINER`, `ENTITLEMENTS_GROUP`,
/// `ENTITLEMENTS_CATALOG`), else ``DefaultLocations`` (none of which depends on the working
/// directory).
package struct CommonOptions: Sendable {
    package static let defaultGroup = "group.com.irenews.geko"

    package var containerPath: ResolvedPath
    package var group: String
    package var catalog: ResolvedPath

    package var container: String { containerPath.path }
    package var catalogPath: String { catalog.path }
    package var layout: ContainerLayout { ContainerLayout(container: container, group: group) }

    package init(
        parsing scanner: inout ArgumentScanner, environment: [String: String] = ProcessInfo.processInfo.environment,
        locations: @autoclosure () -> DefaultLocations = .current
    ) throws(UsageError) {
        let containerFlag = try scanner.value("--container")
        let groupFlag = try scanner.value("--group")
        let catalogFlag = try scanner.value("--catalog")
        var defaults: DefaultLocations?
        func places() -> DefaultLocations {
            if let defaults { return defaults }
            let made = locations()
            defaults = made
            return made
        }
        containerPath = try Self.resolve(containerFlag, flag: "--container", variable: "ENTITLEMENTS_CONTAINER", environment: environment) {
            let place = places().container
            return ResolvedPath(path: place.container, source: .defaultPlace(place.name))
        }
        catalog = try Self.resolve(catalogFlag, flag: "--catalog", variable: "ENTITLEMENTS_CATALOG", environment: environment) {
            Self.defaultCatalog(places())
        }
        group = groupFlag ?? environment["ENTITLEMENTS_GROUP"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultGroup
        guard Self.isValidGroup(group) else {
            throw UsageError("invalid group '\(group)': use letters, digits, '.', '-' and '_' only")
        }
    }

    /// Only `--catalog` (for commands that read no container: `evaluate`, the demo).
    package static func catalog(
        parsing scanner: inout ArgumentScanner, environment: [String: String] = ProcessInfo.processInfo.environment,
        locations: @autoclosure () -> DefaultLocations = .current
    ) throws(UsageError) -> ResolvedPath {
        try resolve(scanner.value("--catalog"), flag: "--catalog", variable: "ENTITLEMENTS_CATALOG", environment: environment) {
            defaultCatalog(locations())
        }
    }

    private static func resolve(
        _ flagValue: String?, flag: String, variable: String, environment: [String: String], orDefault: () -> ResolvedPath
    ) throws(UsageError) -> ResolvedPath {
        if let flagValue {
            guard !flagValue.isEmpty else { throw UsageError("'\(flag)' must not be empty") }
            return ResolvedPath(path: flagValue, source: .flag(flag))
        }
        if let value = environment[variable], !value.isEmpty { return ResolvedPath(path: value, source: .environment(variable)) }
        return orDefault()
    }

    private static func defaultCatalog(_ locations: DefaultLocations) -> ResolvedPath {
        if let place = locations.chosen { return ResolvedPath(path: place.catalog, source: .defaultPlace(place.name)) }
        let first = locations.places[0]
        return ResolvedPath(path: first.catalog, source: .defaultPlace(first.name), alsoTried: locations.places)
    }

    /// A group id becomes a file name: no slashes, no leading dot, nothing empty.
    static func isValidGroup(_ group: String) -> Bool {
        !group.isEmpty && !group.hasPrefix(".") && group.utf8.count <= 200
            && group.unicodeScalars.allSatisfy { isLetterMarkOrNumber($0) || "._-".unicodeScalars.contains($0) }
    }

    /// Foundation's `CharacterSet.alphanumerics`: Unicode general categories L*, M* and N*.
    private static func isLetterMarkOrNumber(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
             .nonspacingMark, .spacingMark, .enclosingMark,
             .decimalNumber, .letterNumber, .otherNumber:
            true
        default:
            false
        }
    }

    static let containerOption = CommandConfiguration.Option(
        "--container", value: "dir",
        "App-group container (env ENTITLEMENTS_CONTAINER; default: the container that goes with the default catalog: ~/.local/state/entitlements/container, /var/lib/entitlements/container or the package's Shared/Container).")
    static let groupOption = CommandConfiguration.Option(
        "--group", value: "id",
        "App-group id; the shared file is <dir>/Library/Preferences/<id>.plist (env ENTITLEMENTS_GROUP; default \(defaultGroup)).")
    static let catalogOption = CommandConfiguration.Option(
        "--catalog", value: "file", "Catalog JSON (env ENTITLEMENTS_CATALOG; default: the first Catalog.json in ~/.config/entitlements, /etc/entitlements and, for a tool run from its package, the package's Shared/).")

    /// The three options as every command that reads the container declares them.
    package static let options: [CommandConfiguration.Option] = [containerOption, groupOption, catalogOption]

    /// The three options for a command that reads no container but accepts the same command
    /// line as the others (`evaluate`): `--container` and `--group` are accepted and ignored.
    package static func options(ignoringContainerIn command: String) -> [CommandConfiguration.Option] {
        var container = containerOption, group = groupOption
        container.help = "Accepted like every tool's, unused: \(command) reads no container."
        group.help = "Accepted like every tool's, unused."
        return [container, group, catalogOption]
    }

    /// The three options for a command that reads no catalog (`watch-link`): `--catalog` is
    /// accepted and ignored.
    package static func options(ignoringCatalogIn command: String) -> [CommandConfiguration.Option] {
        var catalog = catalogOption
        catalog.help = "Accepted like every tool's, unused: \(command) reads no catalog."
        return [containerOption, groupOption, catalog]
    }
}

/// Loads the catalog the command line, the environment or the defaults name, mapping failures
/// onto the contract's codes. A missing catalog names the path and where it came from.
package enum CatalogLoading {
    package static func load(_ catalog: ResolvedPath) throws(ToolError) -> Catalog {
        try requireExists(catalog)
        do { return try Catalog.load(path: catalog.path) } catch { throw ToolError(.dataError, "\(error)") }
    }

    /// Fails with exit 64 and one line naming the path and its source when `catalog` is missing.
    package static func requireExists(_ catalog: ResolvedPath) throws(ToolError) {
        guard FileManager.default.fileExists(atPath: catalog.path) else {
            if catalog.alsoTried.isEmpty {
                throw ToolError(.usage, "\(catalog.path): catalog not found (\(catalog.origin))")
            }
            let tried = catalog.alsoTried.map { "\($0.catalog) (\($0.name))" }.joined(separator: ", ")
            throw ToolError(.usage, "catalog not found: tried \(tried); pass --catalog FILE or set ENTITLEMENTS_CATALOG")
        }
    }
}
