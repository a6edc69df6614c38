import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// The DocC catalogs of the library products build with the toolchain's own
/// `swift-symbolgraph-extract` and `docc`, with every warning (a broken symbol link, an
/// undocumented parameter) an error: what `make docs` runs, on the modules `swift test` built.
@Suite("Documentation", .timeLimit(.minutes(3)))
struct DocumentationTests {
    #if arch(x86_64)
    static let triple = "x86_64-unknown-linux-gnu"
    #else
    static let triple = "aarch64-unknown-linux-gnu"
    #endif

    static func run(_ arguments: [String]) async throws -> (status: Int32?, output: String) {
        let child = try ChildProcess(executable: "/usr/bin/env", arguments: arguments, environment: BuiltTools.environment())
        let status = await child.waitForExit(timeout: .seconds(120))
        if status == nil { await child.stop(grace: .seconds(1)) }
        return (status, child.standardOutput + child.standardError)
    }

    @Test("Each catalog converts with warnings as errors", arguments: ["EntitlementModel", "SharedDefaults", "EntitlementDefaults", "FileWatch", "WidgetTimeline", "WatchExtension"])
    func catalogBuilds(module: String) async throws {
        try await withTemporaryDirectory { root in
            let graphs = root + "/symbol-graphs"
            try FileManager.default.createDirectory(atPath: graphs, withIntermediateDirectories: true)
            let extract = try await Self.run([
                "swift-symbolgraph-extract", "-module-name", module, "-target", Self.triple, "-I", BuiltTools.directory + "/Modules",
                "-minimum-access-level", "public", "-output-dir", graphs,
            ])
            #expect(extract.status == 0, "swift-symbolgraph-extract: \(extract.output)")
            let convert = try await Self.run([
                "docc", "convert", "\(BuiltTools.packageRoot)/Sources/\(module)/\(module).docc", "--additional-symbol-graph-dir", graphs,
                "--fallback-display-name", module, "--fallback-bundle-identifier", "com.irenews.entitlement-broker.\(module)",
                "--warnings-as-errors", "--output-path", root + "/\(module).doccarchive",
            ])
            #expect(convert.status == 0, "docc convert: \(convert.output)")
        }
    }
}
