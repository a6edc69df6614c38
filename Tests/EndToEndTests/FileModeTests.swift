import Foundation
import ServiceRuntime
import TestSupport
import Testing

/// Everything the broker creates has an explicit mode (directories 0750, files 0640), whatever the umask.
@Suite("File modes", .timeLimit(.minutes(1)))
struct FileModeTests {
    @Test("Container, shared file, lock, inbox, journal and state have explicit modes", arguments: ["000", "077", "022"])
    func modes(umask: String) async throws {
        try await Fixture.with { fixture in
            func inUmask(_ tool: String, _ arguments: [String]) -> [String] {
                ["-c", "umask \(umask) && exec \"$0\" \"$@\"", BuiltTools.path(tool)] + arguments
            }
            let lifetime = Fixture.transaction(id: "7001", product: "com.irenews.geko.plus.lifetime", purchased: Date(), expires: nil)
            let eventFile = fixture.root + "/event.jsonl"
            try Data(lifetime.utf8).write(to: URL(fileURLWithPath: eventFile))
            let queued = try ChildProcess(executable: "/bin/sh", arguments: inUmask("entitlementctl", ["ingest", eventFile] + fixture.common))
            #expect(await queued.waitForExit(timeout: .seconds(20)) == 0, "\(queued.standardError)")
            let daemon = try ChildProcess(
                executable: "/bin/sh", arguments: inUmask("entitlementd", fixture.common),
                environment: BuiltTools.environment())
            #expect(await ChildProcess.wait(timeout: .seconds(20)) { fixture.snapshot()?.status(of: "plus").active == true })
            #expect(await daemon.stop() == 0)

            var checked = 0
            for top in [fixture.container] {
                let enumerator = try #require(FileManager.default.enumerator(atPath: top))
                while let relative = enumerator.nextObject() as? String {
                    let path = top + "/" + relative
                    let attributes = try FileManager.default.attributesOfItem(atPath: path)
                    let mode = (attributes[.posixPermissions] as? Int) ?? -1
                    let isDirectory = attributes[.type] as? FileAttributeType == .typeDirectory
                    // The analytics log is the daemon's group's to write (the app appends too).
                    let expected = relative.hasPrefix("Library/Analytics") ? (isDirectory ? 0o2770 : 0o660) : (isDirectory ? 0o750 : 0o640)
                    #expect(mode == expected, "\(path): \(String(mode, radix: 8)) under umask \(umask)")
                    checked += 1
                }
            }
            #expect(checked >= 10)
        }
    }
}
