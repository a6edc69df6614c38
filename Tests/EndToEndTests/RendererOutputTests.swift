import Foundation
import TestSupport
import Testing

/// What a person reads from `widget-renderer`: local time with its offset, one block per family,
/// the watch app's screen under a header and only when asked for.
@Suite("Renderer output", .timeLimit(.minutes(1)))
struct RendererOutputTests {
    /// Runs `widget-renderer` on an empty container (everything renders locked) with `environment`.
    static func render(_ arguments: [String], environment: [String: String] = [:]) async throws -> BuiltTools.Result {
        let root = NSTemporaryDirectory() + "renderer-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let result = try await BuiltTools.run(
            "widget-renderer", ["--container", root, "--catalog", BuiltTools.defaultCatalog] + arguments, environment: environment)
        #expect(result.status == 0, "\(result.standardError)")
        return result
    }

    /// A POSIX TZ rule with daylight saving time (central Europe), so the test needs no zone database.
    static let centralEurope = "CET-1CEST,M3.5.0,M10.5.0/3"

    @Test("Text gives local time with the offset in force at each instant (TZ honoured); JSON stays in UTC", arguments: [
        ("2026-07-01T12:00:00Z", "2026-07-01 14:00:00 +02:00"), ("2026-01-15T12:00:00Z", "2026-01-15 13:00:00 +01:00"),
    ])
    func localTimeFromTZ(now: String, local: String) async throws {
        let text = try await Self.render(["--family", "accessoryInline", "--now", now], environment: ["TZ": Self.centralEurope])
        #expect(text.standardOutput.hasPrefix("accessoryInline · 257×26 pt · no snapshot · now \(local)\n"), "\(text.standardOutput)")
        #expect(text.standardOutput.contains("▸ \(local)  locked (noSnapshot)"), "\(text.standardOutput)")
        let json = try await Self.render(["--family", "accessoryInline", "--now", now, "--format", "json"], environment: ["TZ": Self.centralEurope])
        #expect(json.standardOutput.contains("\"date\":\"\(now)\""), "\(json.standardOutput)")
    }

    @Test("Families are separated by a blank line")
    func blankLineBetweenFamilies() async throws {
        let result = try await Self.render(["--family", "systemSmall", "--family", "accessoryInline", "--now", "2026-07-01T12:00:00Z"], environment: ["TZ": "UTC0"])
        let blocks = result.standardOutput.components(separatedBy: "\n\n")
        #expect(blocks.count == 2, "\(result.standardOutput)")
        #expect(blocks.last?.hasPrefix("accessoryInline · ") == true, "\(result.standardOutput)")
    }

    @Test("The watch app screen has a header, shows with no --family, and with --family only when named 'app'", arguments: [
        ([], true, 4), (["--family", "accessoryInline"], false, 1), (["--family", "app"], true, 0),
        (["--family", "app", "--family", "accessoryCorner"], true, 1),
    ])
    func watchAppScreen(families: [String], showsApp: Bool, complications: Int) async throws {
        let arguments = ["--device", "watch", "--now", "2026-07-01T12:00:00Z"] + families
        let text = try await Self.render(arguments, environment: ["TZ": "UTC0"]).standardOutput
        #expect(text.hasPrefix("watch app · 198×242 pt · no snapshot · now 2026-07-01 12:00:00 +00:00\n┌") == showsApp, "\(text)")
        #expect(text.components(separatedBy: "\n\n").count == complications + (showsApp ? 1 : 0), "\(text)")
        let json = try await Self.render(arguments + ["--format", "json"]).standardOutput.split(separator: "\n")
        #expect(json.contains { $0.contains("\"launch\":") } == showsApp, "\(json)")
        #expect(json.filter { $0.contains("\"family\":") }.count == complications, "\(json)")
    }
}
