import Foundation
import ServiceRuntime
import SystemShims
import TestSupport
import Testing

/// The shipped tools load FoundationEssentials only: Foundation proper drags in CoreFoundation and
/// ICU (~7 MiB resident, ~6 ms of start-up), which the daemon's idle-memory and the renderer's
/// start-up targets cannot afford. A stray `import Foundation` in any library they link fails here.
@Suite("Runtime footprint", .timeLimit(.minutes(1)))
struct RuntimeFootprintTests {
    @Test("Shipped executables do not ask the dynamic linker for Foundation proper or ICU",
          arguments: ["entitlementd", "entitlementctl", "widget-renderer", "entitlement-demo"])
    func executableNeedsOnlyEssentials(tool: String) throws {
        let image = try Data(contentsOf: URL(fileURLWithPath: BuiltTools.path(tool)))
        // Needed-library names sit NUL-terminated in the dynamic string table.
        #expect(image.range(of: Data("libFoundationEssentials.so\0".utf8)) != nil, "the probe itself must be able to see a library name")
        for library in ["libFoundation.so\0", "libFoundationInternationalization.so\0", "lib_FoundationICU.so\0"] {
            #expect(image.range(of: Data(library.utf8)) == nil, "\(tool) links \(library.dropLast())")
        }
    }

    /// SwiftPM links every object of a dependency, used or not: the demo's code (and the
    /// `FileManager`, `URL` and `Data` of FoundationEssentials it brings) in a library the shipped
    /// tools link cost each of their starts about a millisecond of relocation.
    @Test("The shipped tools link none of the demo's code", arguments: ["entitlementd", "entitlementctl", "widget-renderer"])
    func shippedToolsLinkNoDemo(tool: String) throws {
        let image = try Data(contentsOf: URL(fileURLWithPath: BuiltTools.path(tool)))
        let demo = try Data(contentsOf: URL(fileURLWithPath: BuiltTools.path("entitlement-demo")))
        // A text only the demo's script prints, in the constants of the demo's code.
        let probe = Data("every state reached the widget".utf8)
        #expect(demo.range(of: probe) != nil, "the probe itself must find the demo's code in entitlement-demo")
        #expect(image.range(of: probe) == nil, "\(tool) links the demo's code")
    }

    @Test("A running daemon has no Foundation or ICU mapped")
    func runningDaemonMapsOnlyEssentials() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            // The whole file (`procFileText` reads past the first page); still polled until it
            // shows the runtime's libraries, then that reading is judged.
            var maps = ""
            let read = try await eventually(timeout: .seconds(10)) {
                maps = procFileText("/proc/\(daemon.processIdentifier)/maps") ?? ""
                return maps.contains("libswiftCore.so") || maps.contains("libFoundationEssentials.so")
            }
            #expect(read, "no complete reading of the daemon's maps")
            #expect(maps.contains("libFoundationEssentials.so"))
            #expect(!maps.contains("/libFoundation.so"))
            #expect(!maps.contains("lib_FoundationICU.so"))
            #expect(await daemon.stop() == 0)
        }
    }

    /// The entries of `/proc/PID/fd` that are inotify instances.
    static func inotifyInstances(of pid: Int32) -> Int {
        let directory = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) == "anon_inode:inotify" }.count
    }

    @Test("A running daemon watches its inbox and its lock's directory with one inotify instance")
    func daemonHoldsOneInotifyInstance() async throws {
        try await Fixture.with { fixture in
            let daemon = try await fixture.startDaemon()
            defer { daemon.send(SIGKILL) }
            // Both watches are armed before the first publish, which startDaemon waited for.
            #expect(Self.inotifyInstances(of: daemon.processIdentifier) == 1)
            #expect(await daemon.stop() == 0)
        }
    }

    @Test("ingest --wait waits on its main thread: besides it, only the loop's shutdown watchdog runs")
    func ingestWaitsOnItsMainThread() async throws {
        try await Fixture.with { fixture in
            // A daemon's lock that nobody releases: the wait goes on until it is stopped.
            try FileSystem.makeDirectories(path: fixture.layout.brokerDirectory, mode: 0o700)
            let lock = try FileLock(path: fixture.layout.daemonLockPath)
            #expect(try lock.tryLock(.exclusive))
            let line = Fixture.transaction(id: "3001", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            let input = fixture.root + "/purchase.jsonl"
            try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: input))
            let ingest = try BuiltTools.start("entitlementctl", ["ingest", "--wait", "--timeout", "120", input] + fixture.common)
            defer { ingest.send(SIGKILL) }
            let inbox = fixture.layout.inboxDirectory
            let queued = await ChildProcess.wait(timeout: .seconds(60)) {
                !((try? FileManager.default.contentsOfDirectory(atPath: inbox)) ?? []).filter { $0.hasSuffix(".events") }.isEmpty
            }
            try #require(queued, "ingest never queued its file: \(ingest.standardError)")
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(ingest.processIdentifier)/task")) ?? []
            #expect(threads.count == 2, "threads of a waiting ingest: \(threads.count)")
            #expect(Self.inotifyInstances(of: ingest.processIdentifier) == 1)
            // A terminating signal ends the wait (the file made durable), then the process by that signal.
            #expect(await ingest.stop() == 128 + SIGTERM, "\(ingest.standardError)")
            withExtendedLifetime(lock) {}
        }
    }
}
