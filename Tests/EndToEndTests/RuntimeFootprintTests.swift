import Foundation
import ServiceRuntime
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
}
