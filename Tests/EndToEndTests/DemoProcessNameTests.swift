import Foundation
import ServiceRuntime
import Testing
import TestSupport

/// The processes the demo starts run under their tools' names, so `pgrep entitlementd` and `ps`
/// find them (executing `/proc/self/exe` made every one of them `exe`).
@Suite("Demo process names", .timeLimit(.minutes(2)))
struct DemoProcessNameTests {
    /// `comm` of every live child of `parent`, from `/proc/*/stat`.
    static func childNames(of parent: Int32) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> String? in
            guard Int32(entry) != nil, let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")")
            else { return nil }
            // pid (comm) state ppid …: comm may hold spaces and parentheses, so cut at the last ')'.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == parent else { return nil }
            return String(stat[stat.index(after: open)..<close])
        }
    }

    @Test("While the demo runs, its daemon and followers are named entitlementd and widget-renderer")
    func childrenRunUnderToolNames() async throws {
        try await withTemporaryDirectory { tmp in
            let demo = try BuiltTools.start(
                "entitlement-demo", ["--trial-seconds", "30", "--catalog", BuiltTools.defaultCatalog], environment: ["TMPDIR": tmp])
            var seen = Set<String>()
            let found = await ChildProcess.wait(timeout: .seconds(30)) {
                seen.formUnion(Self.childNames(of: demo.processIdentifier))
                return seen.isSuperset(of: ["entitlementd", "widget-renderer"]) || !demo.isRunning
            }
            _ = await demo.stop()
            #expect(found, "children seen: \(seen.sorted()); demo output: \(demo.standardOutput) \(demo.standardError)")
            #expect(!seen.contains("exe"))
            #expect(demo.standardOutput.contains("daemon exited with status 0"), "\(demo.standardOutput)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: tmp).isEmpty)
        }
    }
}
