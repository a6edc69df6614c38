import Foundation
import Glibc
import Synchronization
import SystemShims
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct AtomicFileTests {
    @Test func replaceLeavesTheOldOrTheNewFileNeverAMix() throws {
        try withTemporaryDirectory { directory in
            let old = [UInt8](repeating: 0x61, count: 64 * 1024)
            let new = [UInt8](repeating: 0x62, count: 96 * 1024)
            try AtomicFile.replace(directory: directory, name: "f", bytes: old, mode: 0o640, durable: false)
            let done = Atomic<Bool>(false)
            let mixed = Atomic<Int>(0)
            let reads = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for round in 0..<300 {
                        try? AtomicFile.replace(directory: directory, name: "f", bytes: round.isMultiple(of: 2) ? new : old, mode: 0o640, durable: false)
                    }
                    done.store(true, ordering: .releasing)
                } else {
                    while !done.load(ordering: .acquiring) {
                        let seen = FileManager.default.contents(atPath: directory + "/f").map { [UInt8]($0) }
                        if seen != old && seen != new { mixed.add(1, ordering: .relaxed) }
                        reads.add(1, ordering: .relaxed)
                    }
                }
            }
            #expect(mixed.load(ordering: .relaxed) == 0, "torn reads out of \(reads.load(ordering: .relaxed))")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["f"])
        }
    }

    @Test("Concurrent staged replaces of one name all succeed: every temporary name is new, and none is left")
    func concurrentReplacesNeverShareATemporaryName() throws {
        try withTemporaryDirectory { directory throws in
            let failures = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: 4) { thread in
                for round in 0..<100 {
                    let replace = { () throws(Errno) in
                        let directoryFD = try FileDescriptor.open(directory, .readOnly, options: [.directory, .closeOnExec])
                        try directoryFD.closeAfter { directoryFD throws(Errno) in
                            let replaced = try AtomicFile.replace(
                                in: directoryFD, name: "f", bytes: [UInt8(thread), UInt8(round)], mode: 0o640, durable: false, staged: true)
                            try replaced.takeDescriptor().close()
                        }
                    }
                    do throws(Errno) { try replace() } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }
            #expect(failures.load(ordering: .relaxed) == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory + "/" + AtomicFile.Staging.name) == [])
        }
    }

    @Test func replaceSetsTheModeWhateverTheUmask() throws {
        try withTemporaryDirectory { directory in
            try AtomicFile.replace(directory: directory, name: "f", bytes: [1], mode: 0o666, durable: true)
            #expect(try fileStatus(atPath: directory + "/f").permissions == 0o666)
            try AtomicFile.replace(directory: directory, name: "f", bytes: [2], mode: 0o600, durable: true)
            #expect(try fileStatus(atPath: directory + "/f").permissions == 0o600)
        }
    }

    @Test func failedReplaceLeavesNoTemporaryFileAndTheTargetUntouched() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory + "/target/inner", withIntermediateDirectories: true)
            #expect(throws: Errno.self) {
                try AtomicFile.replace(directory: directory, name: "target", bytes: [1, 2, 3], mode: 0o640, durable: true)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["target"])
            #expect(try fileStatus(atPath: directory + "/target").type == .directory)
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct FileLockTests {
    @Test func twoLocksOnOneFileExcludeEachOtherInOneProcess() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/store.lock"
            let first = try FileLock(path: path)
            let second = try FileLock(path: path)
            try first.lock(.exclusive)
            #expect(try second.tryLock(.exclusive) == false)
            #expect(try second.tryLock(.shared) == false)
            try first.unlock()
            #expect(try second.tryLock(.exclusive) == true)
            #expect(try first.tryLock(.shared) == false)
        }
    }

    @Test func sharedLocksCoexist() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/store.lock"
            let first = try FileLock(path: path)
            let second = try FileLock(path: path)
            #expect(try first.tryLock(.shared))
            #expect(try second.tryLock(.shared))
            #expect(try FileLock(path: path).tryLock(.exclusive) == false)
        }
    }

    @Test func withLockReleasesEvenWhenTheBodyThrowsAndDeinitReleases() throws {
        struct BodyFailed: Error {}
        try withTemporaryDirectory { directory in
            let path = directory + "/store.lock"
            let holder = try FileLock(path: path)
            let other = try FileLock(path: path)
            let heldInside = try holder.withLock(.exclusive) { () throws(Errno) -> Bool in try !other.tryLock() }
            #expect(heldInside)
            #expect(throws: FileLockError<BodyFailed>.self) { try holder.withLock { () throws(BodyFailed) in throw BodyFailed() } }
            #expect(try other.tryLock())
            try other.unlock()
            do {
                let scoped = try FileLock(path: path)
                try scoped.lock()
                #expect(try other.tryLock() == false)
            }
            #expect(try other.tryLock(), "the lock died with its FileLock")
            #expect(try fileStatus(atPath: path).permissions == 0o640)
        }
    }

    @Test func aSymlinkInPlaceOfTheLockFileIsRefused() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.createSymbolicLink(atPath: directory + "/store.lock", withDestinationPath: directory + "/elsewhere")
            #expect(throws: Errno.tooManySymbolicLinkLevels) { try FileLock(path: directory + "/store.lock") }
            #expect(!FileManager.default.fileExists(atPath: directory + "/elsewhere"))
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct FileSystemShimTests {
    @Test func makeDirectoriesAppliesTheModeToEveryCreatedComponent() throws {
        try withTemporaryDirectory { directory in
            try FileSystem.makeDirectories(path: directory + "/a/b/c", mode: 0o770)
            for path in ["/a", "/a/b", "/a/b/c"] {
                #expect(try fileStatus(atPath: directory + path).permissions == 0o770, "\(path)")
            }
            #expect(try fileStatus(atPath: directory).permissions == 0o700, "an existing directory is left alone")
            try FileSystem.makeDirectories(path: directory + "/a/b/c", mode: 0o750)
            #expect(FileManager.default.createFile(atPath: directory + "/file", contents: nil))
            #expect(throws: Errno.notDirectory) { try FileSystem.makeDirectories(path: directory + "/file/x", mode: 0o750) }
        }
    }

    @Test func makeDirectoriesAcceptsAnExistingPathAndRefusesOneThatIsNoDirectory() throws {
        try withTemporaryDirectory { directory in
            try FileSystem.makeDirectories(path: directory + "/a/b", mode: 0o750)
            try FileSystem.makeDirectories(path: directory + "/a/b", mode: 0o700)
            #expect(try fileStatus(atPath: directory + "/a/b").permissions == 0o750, "an existing directory is left alone")
            try FileSystem.makeSymbolicLink(at: directory + "/link", to: directory + "/a")
            try FileSystem.makeDirectories(path: directory + "/link/b/c", mode: 0o750)
            #expect(try fileStatus(atPath: directory + "/a/b/c").permissions == 0o750, "made through a link to a directory")
            #expect(FileManager.default.createFile(atPath: directory + "/a/file", contents: nil))
            #expect(throws: Errno.notDirectory) { try FileSystem.makeDirectories(path: directory + "/a/file", mode: 0o750) }
        }
    }

    @Test func descriptorReadsWritesAndLimitsReads() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/data"
            let writer = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate, .closeOnExec], permissions: 0o600)
            try writer.closeAfter { writer throws(Errno) in
                try writer.writeAll([UInt8](repeating: 7, count: 100_000))
                try writer.fsync()
            }
            let reader = try FileDescriptor.open(path, .readOnly)
            let status = try reader.fstat()
            #expect(status.size == 100_000 && status.type == .regular && status.userID == ProcessIdentity.effectiveUserID)
            #expect(try reader.readAll(limit: 100_000).count == 100_000)
            try reader.close()
            let limited = try FileDescriptor.open(path, .readOnly)
            #expect(throws: ReadAllError.exceedsLimit(limit: 99_999)) { try limited.readAll(limit: 99_999) }
            try limited.close()
            #expect(throws: Errno.exists) {
                _ = try FileDescriptor.open(path, .writeOnly, options: [.create, .exclusiveCreate]).release()
            }
            #expect(Errno.noSuchFileOrDirectory.description == "No such file or directory (ENOENT)")
        }
    }
}

@Suite struct ProcessIdentityTests {
    @Test("A forked child goes by its own process ID, not the one its parent read before the fork")
    func aForkedChildHasItsOwnProcessID() throws {
        #expect(ProcessIdentity.processID == getpid())
        let child = fork()
        if child == 0 { _exit(ProcessIdentity.processID == getpid() ? 0 : 1) }
        try #require(child > 0)
        var status: CInt = 0
        #expect(waitpid(child, &status, 0) == child)
        #expect(status == 0, "the child saw its parent's ID")
    }
}
