#if ENABLE_MOCKING
import Foundation
import PropertyList
import SharedDefaults
import SystemShims
import TestSupport
import Testing

/// The atomic replace of the shared file (every `SharedDefaults` write, the daemon's publish
/// among them), with system calls failed on purpose through SystemShims' seam (debug builds
/// only): the file is the old one or the new one, never a mix, and nothing is left behind.
@Suite struct PublishFaultTests {
    /// A store at `directory` holding `generation` 1, and the file's bytes.
    private static func store(in directory: String) throws -> (SharedDefaults, path: String, before: Data) {
        let defaults = SharedDefaults(suiteName: "group.faults", container: directory)
        try defaults.set(1, forKey: "generation")
        let path = directory + "/Library/Preferences/group.faults.plist"
        return (defaults, path, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The names in the preferences directory other than the suite file and its lock.
    /// Every name in the preferences directory and in its staging subdirectory other than the
    /// suite file, its lock and the staging directory itself: what a failed replace must not leave.
    private static func strayFiles(in directory: String) throws -> [String] {
        let preferences = directory + "/Library/Preferences"
        let staging = preferences + "/" + AtomicFile.Staging.name
        let staged = (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []
        return try FileManager.default.contentsOfDirectory(atPath: preferences)
            .filter { $0 != "group.faults.plist" && !$0.hasSuffix(".lock") && $0 != AtomicFile.Staging.name }
            + staged.map { AtomicFile.Staging.name + "/" + $0 }
    }

    private static func generation(at path: String, container: String) -> Int64? {
        guard case .integer(let value)? = SharedDefaults(suiteName: "group.faults", container: container).dictionaryRepresentation()["generation"]
        else { return nil }
        return value
    }

    @Test("EINTR on the write and on the fsync is retried: the replace completes")
    func interruptedCallsAreRetried() throws {
        try withTemporaryDirectory { directory in
            let (defaults, path, _) = try Self.store(in: directory)
            let faults = SyscallFaults()
            faults.inject(.fail(.interrupted), into: .write, times: 2)
            faults.inject(.fail(.interrupted), into: .fsync)
            try faults.withFaults { try defaults.set(2, forKey: "generation") }
            #expect(faults.count(of: .write) == 3, "two interrupted writes, then one: \(faults.trace)")
            #expect(Self.generation(at: path, container: directory) == 2)
            #expect(try Self.strayFiles(in: directory).isEmpty)
        }
    }

    @Test("Short writes are continued until the whole file is written")
    func shortWritesAreCompleted() throws {
        try withTemporaryDirectory { directory in
            let (defaults, path, _) = try Self.store(in: directory)
            let faults = SyscallFaults()
            faults.inject(.shortTransfer(maximumBytes: 5), into: .write, times: nil)
            let long = String(repeating: "x", count: 200)
            try faults.withFaults { try defaults.set(long, forKey: "note") }
            #expect(faults.count(of: .write) > 40, "200 bytes and more, 5 at a time: \(faults.count(of: .write)) writes")
            #expect(SharedDefaults(suiteName: "group.faults", container: directory).dictionaryRepresentation()["note"] == .string(long))
            #expect(Self.generation(at: path, container: directory) == 1)
        }
    }

    @Test(
        "A failed write, fsync or rename leaves the old file, no temporary file, and a retry succeeds",
        arguments: [
            (SyscallFaults.Call.write, Errno.noSpace), (.write, .ioError), (.fsync, .ioError), (.fsync, .noSpace), (.renameat, .ioError),
        ])
    func failedReplaceLeavesTheOldFile(call: SyscallFaults.Call, errno: Errno) throws {
        try withTemporaryDirectory { directory in
            let (defaults, path, before) = try Self.store(in: directory)
            let faults = SyscallFaults()
            faults.inject(.fail(errno), into: call)
            let error = #expect(throws: SharedDefaultsError.self) { try faults.withFaults { try defaults.set(2, forKey: "generation") } }
            #expect(error == .system(path: path, operation: "atomic replace", errno: errno))
            #expect(error?.description == "\(path): atomic replace failed: \(errno)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the old file, byte for byte")
            #expect(try Self.strayFiles(in: directory).isEmpty, "the temporary file is removed")
            #expect(Self.generation(at: path, container: directory) == 1)
            // The fault has passed (a disk with room again): the same write goes through.
            try defaults.set(2, forKey: "generation")
            #expect(Self.generation(at: path, container: directory) == 2)
        }
    }
}
#endif
