import CLISupport
@testable import EntitlementTools
import Foundation
import Testing
import TestSupport

/// Container, group and catalog: flag, then environment, then the first default place that
/// holds a catalog; never the working directory.
@Suite("Default locations")
struct DefaultLocationsTests {
    @Test("User, system and (run from the package) package places, in that order")
    func places() {
        let executable = BuiltTools.path("entitlementctl")
        let locations = DefaultLocations(environment: ["HOME": "/home/u"], executablePath: executable)
        #expect(locations.places == [
            .init(name: "user default", catalog: "/home/u/.config/entitlements/Catalog.json", container: "/home/u/.local/state/entitlements/container"),
            .init(name: "system default", catalog: "/etc/entitlements/Catalog.json", container: "/var/lib/entitlements/container"),
            .init(name: "package default", catalog: BuiltTools.packageRoot + "/Shared/Catalog.json", container: BuiltTools.packageRoot + "/Shared/Container"),
        ])
        let xdg = DefaultLocations(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "/c", "XDG_STATE_HOME": "/s"], executablePath: "/usr/bin/entitlementctl")
        #expect(xdg.places.map(\.catalog) == ["/c/entitlements/Catalog.json", "/etc/entitlements/Catalog.json"])
        #expect(xdg.places.first?.container == "/s/entitlements/container")
        // Relative XDG paths are ignored, as the XDG specification says.
        let relative = DefaultLocations(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": "c"], executablePath: nil)
        #expect(relative.places.first?.catalog == "/home/u/.config/entitlements/Catalog.json")
        let homeless = DefaultLocations(environment: [:], executablePath: nil)
        #expect(homeless.places.map(\.name) == ["system default"])
    }

    @Test("The package is found from the executable's path inside its .build directory only")
    func packageRoot() {
        #expect(DefaultLocations.packageRoot(containing: BuiltTools.path("widget-renderer")) == BuiltTools.packageRoot)
        #expect(DefaultLocations.packageRoot(containing: "/usr/local/bin/widget-renderer") == nil)
        #expect(DefaultLocations.packageRoot(containing: BuiltTools.packageRoot + "/widget-renderer") == nil)
    }

    @Test("Flag, then environment, then the first place with a catalog; the container follows that place")
    func resolution() throws {
        try withTemporaryDirectory { root in
            let user = DefaultLocations.Place(name: "user default", catalog: root + "/user/Catalog.json", container: root + "/user/container")
            let system = DefaultLocations.Place(name: "system default", catalog: root + "/system/Catalog.json", container: root + "/system/container")
            let locations = DefaultLocations(user, system)
            func parse(_ flags: (container: String, catalog: String, group: String)? = nil, _ environment: [String: String] = [:]) throws -> CommonOptions {
                var options = CommonOptions()
                (options.containerFlag, options.catalogFlag, options.groupFlag) = (flags?.container, flags?.catalog, flags?.group)
                try options.resolve(variable: { environment[$0] }, locations: { locations })
                return options
            }

            let nowhere = try parse()
            #expect(nowhere.containerPath == ResolvedPath(path: user.container, source: .defaultPlace("user default")))
            #expect(nowhere.catalog.alsoTried == [user, system])
            let error = #expect(throws: UsageError.self) { try CatalogLoading.load(nowhere.catalog) }
            #expect(error?.message == "catalog not found: tried \(user.catalog) (user default), \(system.catalog) (system default); pass --catalog FILE or set ENTITLEMENTS_CATALOG")

            try FileManager.default.createDirectory(atPath: root + "/system", withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: system.catalog))
            let installed = try parse()
            #expect(installed.catalog == ResolvedPath(path: system.catalog, source: .defaultPlace("system default")))
            #expect(installed.containerPath == ResolvedPath(path: system.container, source: .defaultPlace("system default")))
            #expect(installed.group == CommonOptions.defaultGroup)

            let environment = ["ENTITLEMENTS_CONTAINER": "/e/c", "ENTITLEMENTS_CATALOG": "/e/Catalog.json", "ENTITLEMENTS_GROUP": "group.e"]
            let fromEnvironment = try parse(nil, environment)
            #expect(fromEnvironment.containerPath == ResolvedPath(path: "/e/c", source: .environment("ENTITLEMENTS_CONTAINER")))
            #expect(fromEnvironment.catalog == ResolvedPath(path: "/e/Catalog.json", source: .environment("ENTITLEMENTS_CATALOG")))
            #expect(fromEnvironment.group == "group.e")

            let fromFlags = try parse(("/f/c", "/f/Catalog.json", "group.f"), environment)
            #expect(fromFlags.containerPath == ResolvedPath(path: "/f/c", source: .flag("--container")))
            #expect(fromFlags.catalog == ResolvedPath(path: "/f/Catalog.json", source: .flag("--catalog")))
            #expect(fromFlags.group == "group.f")
        }
    }

    @Test("The default places come from the environment the options are resolved with")
    func injectedEnvironment() throws {
        try withTemporaryDirectory { root in
            try FileManager.default.createDirectory(atPath: root + "/config/entitlements", withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: root + "/config/entitlements/Catalog.json"))
            let environment = ["HOME": root + "/home", "XDG_CONFIG_HOME": root + "/config", "XDG_STATE_HOME": root + "/state"]
            var options = CommonOptions()
            try options.resolve(variable: { environment[$0] })
            #expect(options.catalog == ResolvedPath(path: root + "/config/entitlements/Catalog.json", source: .defaultPlace("user default")))
            #expect(options.containerPath == ResolvedPath(path: root + "/state/entitlements/container", source: .defaultPlace("user default")))
        }
    }

    @Test("A missing catalog names its path and where the path came from", arguments: [
        (ResolvedPath(path: "/x/Catalog.json", source: .flag("--catalog")), "/x/Catalog.json: catalog not found (from --catalog)"),
        (ResolvedPath(path: "/x/Catalog.json", source: .environment("ENTITLEMENTS_CATALOG")), "/x/Catalog.json: catalog not found (from ENTITLEMENTS_CATALOG)"),
        (ResolvedPath(path: "/x/Catalog.json", source: .defaultPlace("package default")), "/x/Catalog.json: catalog not found (package default)"),
    ])
    func missingCatalog(catalog: ResolvedPath, message: String) {
        let error = #expect(throws: UsageError.self) { try CatalogLoading.load(catalog) }
        #expect(error?.message == message)
    }
}
