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
        let (executable, arguments) = BuiltTools.lowPriority(arguments)
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: BuiltTools.environment())
        let status = await child.waitForExit(timeout: .seconds(120))
        if status == nil { await child.stop(grace: .seconds(1)) }
        return (status, child.standardOutput + child.standardError)
    }

    /// Extracts `module`'s public symbol graph into `directory` and returns the parsed graph files
    /// (the module's own, and one per module it extends).
    static func publicSymbolGraphs(of module: String, into directory: String) async throws -> [[String: Any]] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let extract = try await run([
            "swift-symbolgraph-extract", "-module-name", module, "-target", triple, "-I", BuiltTools.directory + "/Modules",
            "-minimum-access-level", "public", "-output-dir", directory,
        ])
        #expect(extract.status == 0, "swift-symbolgraph-extract: \(extract.output)")
        return try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".symbols.json") }.sorted().map {
            let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0))
            return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any], "\($0) is not a JSON object")
        }
    }

    /// The public and open symbols declared in the package's sources that carry no doc comment,
    /// as `file:line: kind Type.member`. Members the compiler synthesizes for a conformance
    /// (`hashValue`, `hash(into:)`, literal initializers) have no source location and are not
    /// counted; a member that inherits its protocol requirement's documentation counts as documented.
    static func undocumentedSymbols(in graphs: [[String: Any]]) -> [String] {
        var missing: [String] = []
        for graph in graphs {
            for symbol in graph["symbols"] as? [[String: Any]] ?? [] {
                guard ["public", "open"].contains(symbol["accessLevel"] as? String), symbol["docComment"] == nil,
                    let location = symbol["location"] as? [String: Any], let uri = location["uri"] as? String
                else { continue }
                let identifier = (symbol["identifier"] as? [String: Any])?["precise"] as? String ?? ""
                if identifier.contains("::SYNTHESIZED::") { continue }
                let line = ((location["position"] as? [String: Any])?["line"] as? Int).map { $0 + 1 } ?? 0
                let file = uri.replacingOccurrences(of: "file://" + BuiltTools.packageRoot + "/", with: "")
                let kind = (symbol["kind"] as? [String: Any])?["identifier"] as? String ?? "?"
                let path = (symbol["pathComponents"] as? [String] ?? []).joined(separator: ".")
                missing.append("\(file):\(line): \(kind) \(path)")
            }
        }
        return missing.sorted()
    }

    /// Every public symbol of a library a consumer links says what a caller must know: the
    /// toolchain's symbol graph, the same one DocC reads, has a doc comment for each.
    @Test(
        "Every public symbol has a doc comment",
        arguments: ["StoreKitFormats", "Entitlements", "SharedDefaults", "EntitlementDefaults", "FileWatch", "WidgetTimeline", "WatchExtension", "Cryptography", "SignedData", "PropertyList", "Broker"])
    func publicSymbolsAreDocumented(module: String) async throws {
        try await withTemporaryDirectory { root in
            let graphs = try await Self.publicSymbolGraphs(of: module, into: root + "/symbol-graphs")
            #expect(!graphs.isEmpty, "no symbol graph for \(module)")
            let missing = Self.undocumentedSymbols(in: graphs)
            if !missing.isEmpty {
                Issue.record("\(missing.count) public symbols of \(module) have no doc comment:\n\(missing.joined(separator: "\n"))")
            }
        }
    }

    @Test("Each catalog converts with warnings as errors", arguments: ["StoreKitFormats", "Entitlements", "SharedDefaults", "EntitlementDefaults", "FileWatch", "WidgetTimeline", "WatchExtension"])
    func catalogBuilds(module: String) async throws {
        try await withTemporaryDirectory { root in
            let graphs = root + "/symbol-graphs"
            _ = try await Self.publicSymbolGraphs(of: module, into: graphs)
            let convert = try await Self.run([
                "docc", "convert", "\(BuiltTools.packageRoot)/Sources/\(module)/\(module).docc", "--additional-symbol-graph-dir", graphs,
                "--fallback-display-name", module, "--fallback-bundle-identifier", "com.irenews.entitlement-broker.\(module)",
                "--warnings-as-errors", "--output-path", root + "/\(module).doccarchive",
            ])
            #expect(convert.status == 0, "docc convert: \(convert.output)")
        }
    }
}
