import Foundation
import Glibc
import SystemShims
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct StaleTemporaryFileTests {
    @Test func onlyTemporaryFilesOfDeadWritersAreRemoved() throws {
        try withTemporaryDirectory { directory in
            // A pid that cannot exist (above pid_max's hard ceiling) stands for a dead writer.
            let dead = ".group.plist.tmp-\(Int32.max)-123"
            let alive = ".group.plist.tmp-\(getpid())-456"
            let keep = ["group.plist", ".group.plist.lock", ".notatemp-1-2", ".x.tmp-abc-1", "plain.tmp-1-2"]
            for name in [dead, alive] + keep {
                #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("x".utf8)))
            }
            #expect(AtomicFile.removeStaleTemporaryFiles(in: directory) == 1)
            let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory))
            #expect(left == Set([alive] + keep))
            #expect(AtomicFile.removeStaleTemporaryFiles(in: directory + "/missing") == 0)
        }
    }

    @Test func temporaryFilesOfDeadWritersInTheStagingDirectoryAreRemovedToo() throws {
        try withTemporaryDirectory { directory in
            let staging = directory + "/" + AtomicFile.Staging.name
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
            let dead = ".group.plist.tmp-\(Int32.max)-123"
            let alive = ".group.plist.tmp-\(getpid())-456"
            for name in [dead, alive] {
                #expect(FileManager.default.createFile(atPath: staging + "/" + name, contents: Data("x".utf8)))
            }
            #expect(AtomicFile.removeStaleTemporaryFiles(in: directory) == 1)
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: staging)) == [alive])
        }
    }
}
