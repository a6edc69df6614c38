import FoundationEssentials
import SystemShims

/// Where the tools look for the catalog and the app-group container when neither a flag nor the
/// environment names them, so that they work wherever the user stands.
///
/// Three places are tried in order; the first that holds a catalog (`Catalog.json`) supplies
/// both the catalog and the container, so an installation's tools agree on one container:
///
/// | place | catalog | container |
/// | --- | --- | --- |
/// | user | `$XDG_CONFIG_HOME/entitlements/Catalog.json` (`~/.config/…`) | `$XDG_STATE_HOME/entitlements/container` (`~/.local/state/…`) |
/// | system | `/etc/entitlements/Catalog.json` | `/var/lib/entitlements/container` (the systemd unit's `StateDirectory`) |
/// | package | `Shared/Catalog.json` of the package the tool was built in | `Shared/Container` |
///
/// The package place exists only for a tool run from its package's `.build` directory (found by
/// walking up from the executable's own path, not from the working directory). With no catalog
/// anywhere, the container is the user place's (the system's when there is no home).
package struct DefaultLocations: Sendable {
    /// One place a catalog and a container may live.
    package struct Place: Sendable, Equatable {
        /// `user default`, `system default` or `package default`: how messages name it.
        package var name: String
        package var catalog: String
        package var container: String

        package static let system = Place(
            name: "system default", catalog: "/etc/entitlements/Catalog.json", container: "/var/lib/entitlements/container")
    }

    /// The place tried first; it supplies the container when no place has a catalog.
    private let first: Place
    private let others: [Place]

    /// The places in the order they are tried; never empty.
    package var places: [Place] { [first] + others }

    /// The places `first`, then `others`, in that order.
    package init(_ first: Place, _ others: Place...) {
        self.first = first
        self.others = others
    }

    /// The places for `environment` (`HOME`, `XDG_CONFIG_HOME`, `XDG_STATE_HOME`) and the
    /// executable at `executablePath`: the user's when there is a home, the system's, the package's.
    package init(environment: [String: String], executablePath: String?) {
        self.init(variable: { environment[$0] }, executablePath: executablePath)
    }

    /// The places for the environment whose variables `variable` gives by name, and the
    /// executable at `executablePath` (see ``init(environment:executablePath:)``).
    package init(variable: (String) -> String?, executablePath: String?) {
        let home = variable("HOME").flatMap { $0.isEmpty ? nil : $0 }
        let config = variable("XDG_CONFIG_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home.map { $0 + "/.config" }
        let state = variable("XDG_STATE_HOME").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home.map { $0 + "/.local/state" }
        let user: Place? = if let config, let state {
            Place(name: "user default", catalog: config + "/entitlements/Catalog.json", container: state + "/entitlements/container")
        } else {
            nil
        }
        let package = executablePath.flatMap(Self.packageRoot(containing:)).map {
            Place(name: "package default", catalog: $0 + "/Shared/Catalog.json", container: $0 + "/Shared/Container")
        }
        first = user ?? .system
        others = (user == nil ? [] : [.system]) + (package.map { [$0] } ?? [])
    }

    /// The places for `environment` and this process's executable.
    package init(environment: [String: String]) {
        self.init(variable: { environment[$0] })
    }

    /// The places for the environment `variable` gives by name and this process's executable.
    package init(variable: (String) -> String?) {
        self.init(variable: variable, executablePath: ProcessIdentity.ownExecutablePath())
    }

    /// The default container and catalog, both from one place: the first whose catalog exists;
    /// with no catalog anywhere, the first place (whose catalog then lists every place tried).
    /// Each call looks at the file system once.
    package func resolve() -> (container: ResolvedPath, catalog: ResolvedPath) {
        let found = places.first { FileSystem.exists(atPath: $0.catalog) }
        let place = found ?? first
        return (
            ResolvedPath(path: place.container, source: .defaultPlace(place.name)),
            ResolvedPath(path: place.catalog, source: .defaultPlace(place.name), alsoTried: found == nil ? places : []))
    }

    /// The package root above `executable` when it lies in that package's `.build` directory
    /// (`<root>/.build/<triple>/debug/<tool>`): the nearest ancestor named `.build` whose parent
    /// holds `Package.swift` and `Shared/Catalog.json`.
    static func packageRoot(containing executable: String) -> String? {
        var components = executable.split(separator: "/").map(String.init)
        while let last = components.popLast() {
            guard last == ".build" else { continue }
            let root = "/" + components.joined(separator: "/")
            if FileSystem.exists(atPath: root + "/Package.swift"), FileSystem.exists(atPath: root + "/Shared/Catalog.json") {
                return root
            }
            return nil
        }
        return nil
    }
}

/// A path from the command line, the environment or a default, and which of them it came from,
/// so that every "not found" can say where the path it tried came from.
package struct ResolvedPath: Sendable, Equatable {
    package enum Source: Sendable, Equatable {
        case flag(String)
        case environment(String)
        case defaultPlace(String)
    }

    package var path: String
    package var source: Source
    /// For a default catalog that exists nowhere: every place tried.
    package var alsoTried: [DefaultLocations.Place] = []

    package init(path: String, source: Source, alsoTried: [DefaultLocations.Place] = []) {
        self.path = path
        self.source = source
        self.alsoTried = alsoTried
    }

    /// `from --catalog`, `from ENTITLEMENTS_CATALOG`, `package default`.
    package var origin: String {
        switch source {
        case .flag(let name): "from \(name)"
        case .environment(let name): "from \(name)"
        case .defaultPlace(let name): name
        }
    }
}
