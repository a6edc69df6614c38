import CLISupport
import EntitlementDefaults
import Entitlements
import SharedDefaults
import SystemShims
import EntitlementTools

/// `entitlementctl preference KEY on|off`: store the user's choice of one of the catalog's
/// premium toggles in the app group's suite.
struct PreferenceCommand: Command {
    static let configuration = CommandConfiguration(
        commandName: "entitlementctl preference",
        abstract: "Store the user's choice of one of the catalog's preferences (premium toggles).",
        discussion: """
            Writes the boolean under KEY in the app group's shared file, in one locked update that keeps every other key; \
            the daemon's publishes keep it. It takes effect at the next launch, and only while the preference's feature \
            is unlocked (status --format json: preferences.KEY.effectiveAtNextLaunch). KEY must be one of the catalog's \
            preferences (64 otherwise). Must run as the daemon's user.
            """,
        arguments: [
            .init("key", "The preference's key in the catalog's preferences."),
            .init("value", "The user's choice. (values: on, off)"),
        ])

    static let options: [CommandOption<Self>] = [.group { $0.common = $1 }]

    var common = CommonOptions()
    var key = ""
    var enabled = false

    mutating func parseArguments(_ scanner: inout ArgumentScanner) throws {
        let rest = try scanner.positionals()
        guard rest.count == 2 else {
            throw UsageError(rest.isEmpty ? "missing preference key" : rest.count == 1 ? "missing 'on' or 'off' after '\(rest[0])'" : "expected 'KEY on|off'")
        }
        guard rest[1] == "on" || rest[1] == "off" else { throw UsageError("expected 'on' or 'off', got '\(rest[1])'") }
        key = rest[0]
        enabled = rest[1] == "on"
    }

    nonisolated(nonsending) func run() async throws {
        let catalog = try CatalogLoading.load(common.catalog)
        guard catalog.preferences[key] != nil else {
            let known = catalog.preferences.keys.sorted()
            throw UsageError(
                "unknown preference '\(key)'" + Suggestion.didYouMean(key, among: known)
                    + " (\(common.catalogPath) declares: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        let layout = common.layout(for: catalog)
        let defaults = SharedDefaults(suiteName: layout.group, container: common.container)
        do { try LaunchPreferences.set(key, enabled, in: defaults) } catch {
            throw ToolError(Self.exitCode(error), "\(error)")
        }
        StandardStreams.writeOut("preference \(key) \(enabled ? "on" : "off") (applies at next launch)\n")
    }

    /// A failed system call by its errno (77 permission denied, else 75); a shared file refused
    /// for what it is (foreign owner, symlink, too large) is 65.
    static func exitCode(_ error: SharedDefaultsError) -> ExitCode {
        if case .system(_, _, let errno) = error { return ExitCode(failedCall: errno) }
        return .dataError
    }
}
