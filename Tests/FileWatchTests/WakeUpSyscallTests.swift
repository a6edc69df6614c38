#if ENABLE_MOCKING
import FileWatch
import Foundation
import Glibc
import SystemShims
import Testing

/// What one wake-up of a watch costs in system calls on the inotify descriptor, counted through
/// SystemShims' seam (debug builds only): every change below is one `IN_MOVED_TO` (the file is
/// made in a sibling directory and renamed in), awaited before the next.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct WakeUpSyscallTests {
    static let changes = 5

    /// Renames a new file over `name` in `directory` from the sibling `staging` directory.
    static func moveIn(_ name: String, contents: String, directory: String, staging: String) throws {
        try writeFile(staging + "/" + name, contents)
        guard rename(staging + "/" + name, directory + "/" + name) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }

    /// The watched directory and its sibling the changes are made in, under `root`.
    static func makeDirectories(in root: String) throws -> (watched: String, staging: String) {
        let watched = root + "/watched", staging = root + "/staging"
        try FileManager.default.createDirectory(atPath: watched, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
        return (watched, staging)
    }

    @Test("A wake-up whose read left room in the buffer reads the queue once, not again until EAGAIN")
    func oneReadPerWakeUp() async throws {
        try await withTemporaryDirectory { root in
            let (directory, staging) = try Self.makeDirectories(in: root)
            let faults = SyscallFaults()
            try await faults.withFaults {
                var iterator = DirectoryWatch(directory: directory, names: ["state.plist"]).makeAsyncIterator()
                #expect(try await iterator.next() == .armed)
                let before = faults.count(of: .read)
                for change in 0..<Self.changes {
                    try Self.moveIn("state.plist", contents: "\(change)", directory: directory, staging: staging)
                    #expect(try await iterator.next() == .changed(["state.plist"]))
                }
                #expect(faults.count(of: .read) - before == Self.changes, "trace: \(faults.trace)")
            }
        }
    }

    @Test("On the caller's thread with no settle window, a watch waits in the read itself: one read per wake-up, no poll")
    func inlineWatchWaitsInRead() async throws {
        try await withTemporaryDirectory { root in
            let (directory, staging) = try Self.makeDirectories(in: root)
            let faults = SyscallFaults()
            var seen: [FileWatchEvent] = []
            var readsAtArming = 0
            try faults.withFaults { () throws(FileWatchError) in
                // The handler makes each next change itself, so every wake-up finds exactly one event.
                try DirectoryWatch(directory: directory, names: ["state.plist"]).forEachEventOnCurrentThread { event in
                    seen.append(event)
                    if event == .armed { readsAtArming = faults.count(of: .read) }
                    guard seen.count <= Self.changes else { return false }
                    do {
                        try Self.moveIn("state.plist", contents: "\(seen.count)", directory: directory, staging: staging)
                    } catch {
                        Issue.record("could not change the file: \(error)")
                        return false
                    }
                    return true
                }
            }
            #expect(seen == [.armed] + Array(repeating: .changed(["state.plist"]), count: Self.changes))
            #expect(faults.count(of: .poll) == 0, "trace: \(faults.trace)")
            #expect(faults.count(of: .read) - readsAtArming == Self.changes, "trace: \(faults.trace)")
        }
    }
}
#endif
