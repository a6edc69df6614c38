import Broker
import CLISupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--container`, `--group` and `--catalog`, which every tool takes, with the environment
/// fallbacks and defaults of the contract (they work from the package root with no flags).
package struct CommonOptions: Sendable {
    static let defaultContainer = "Shared/Container"
    static let defaultGroup = "group.com.irenews.geko"
    static let defaultCatalog = "Shared/Catalog.json"

    package var container: String
    package var group: String
    package var catalogPath: String

    package var layout: ContainerLayout { ContainerLayout(container: container, group: group) }

    package init(parsing scanner: inout ArgumentScanner, environment: [String: String] = ProcessInfo.processInfo.environment) throws(UsageError) {
        container = try scanner.value("--container") ?? environment["ENTITLEMENTS_CONTAINER"] ?? Self.defaultContainer
        group = try scanner.value("--group") ?? environment["ENTITLEMENTS_GROUP"] ?? Self.defaultGroup
        catalogPath = try scanner.value("--catalog") ?? environment["ENTITLEMENTS_CATALOG"] ?? Self.defaultCatalog
        guard !container.isEmpty else { throw UsageError("'--container' must not be empty") }
        guard Self.isValidGroup(group) else {
            throw UsageError("Invalid group '\(group)': use letters, digits, '.', '-' and '_' only")
        }
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

    package static let help: [CommandConfiguration.Option] = [
        .init("--container <dir>", "App-group container (env ENTITLEMENTS_CONTAINER; default \(defaultContainer))."),
        .init("--group <id>", "App-group id; the shared file is <dir>/Library/Preferences/<id>.plist (env ENTITLEMENTS_GROUP; default \(defaultGroup))."),
        .init("--catalog <file>", "Catalog JSON (env ENTITLEMENTS_CATALOG; default \(defaultCatalog))."),
    ]
}
