import EntitlementDefaults
import EntitlementModel
import Foundation
import Glibc
import SharedDefaults
import SystemShims
import TestSupport
import Testing

/// `SnapshotReader.refresh(changeReported: true)`, for a reader a watcher just woke: the file is
/// opened before it is compared with the last one read. Same answers as the look-up first, one
/// system call less for a changed file, and a refused file still not opened again.
@Suite(.timeLimit(.minutes(1))) struct ReportedChangeTests {
    /// What is put at the suite file's name, one after the other.
    enum Step: CaseIterable {
        case good1, sameFileAgain, sameSnapshotNewFile, worldWritable, worldWritableAgain, good2, symlink, symlinkAgain,
            fifo, foreignOwner, undecodable, undecodableAgain, missing, good3, lowerGeneration, emptyDirectory, missingDirectory, good4
    }

    static func apply(_ step: Step, container: String) throws {
        let directory = container + "/Library/Preferences"
        let path = directory + "/" + Fixture.suite + ".plist"
        func publish(_ generation: Int64) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
            let temporary = directory + "/.next"
            try Fixture.writeRaw(try Fixture.bytes(of: Fixture.snapshot(generation: generation)), to: temporary)
            try #require(rename(temporary, path) == 0)
        }
        switch step {
        case .good1: try publish(1)
        case .sameFileAgain, .worldWritableAgain, .symlinkAgain, .undecodableAgain: break
        case .sameSnapshotNewFile: try publish(1)
        case .worldWritable: try #require(chmod(path, 0o666) == 0)
        case .good2: try publish(2)
        case .symlink:
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/etc/hostname")
        case .fifo:
            try FileManager.default.removeItem(atPath: path)
            try #require(mkfifo(path, 0o640) == 0)
        case .foreignOwner:
            try publish(3)
            try #require(chown(path, ReadPathTests.thirdUser, ReadPathTests.thirdUser) == 0)
        case .undecodable: try Fixture.writeRaw(Array("not a property list".utf8), to: path)
        case .missing: try FileManager.default.removeItem(atPath: path)
        case .good3: try publish(3)
        case .lowerGeneration: try publish(2)
        case .emptyDirectory: try FileManager.default.removeItem(atPath: path)
        case .missingDirectory: try FileManager.default.removeItem(atPath: directory)
        case .good4: try publish(4)
        }
    }

    @Test("Every outcome is the one the look-up first gives, step by step through good, refused and missing files")
    func sameOutcomesAsLookingUpFirst() throws {
        try withTemporaryDirectory { container in
            let lookingUp = SnapshotReader(suiteName: Fixture.suite, container: container)
            let opening = SnapshotReader(suiteName: Fixture.suite, container: container)
            for step in Step.allCases {
                try Self.apply(step, container: container)
                let expected = lookingUp.refresh()
                #expect(opening.refresh(changeReported: true) == expected, "\(step)")
                #expect(opening.lastGood == lookingUp.lastGood, "\(step)")
            }
            #expect(opening.lastGood?.generation == 4)
        }
    }

    #if ENABLE_MOCKING
    @Test("A reported change costs one fstatat less: the open file's fstat is the key")
    func aReportedChangeIsOpenedWithoutALookUp() throws {
        try withTemporaryDirectory { container in
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            try Self.apply(.good1, container: container)
            #expect(reader.refresh().snapshot?.generation == 1)

            try Self.apply(.good2, container: container)
            let faults = SyscallFaults()
            #expect(faults.withFaults { reader.refresh(changeReported: true) }.snapshot?.generation == 2)
            // The directory's name looked up, then the file: openat, fstat, read.
            #expect(faults.trace == [.fstatat, .open, .fstat, .read])

            let unchanged = SyscallFaults()
            #expect(unchanged.withFaults { reader.refresh(changeReported: true) } == .unchanged(Fixture.snapshot(generation: 2)))
            #expect(unchanged.count(of: .read) == 0, "an unchanged file is not read: \(unchanged.trace)")
        }
    }

    @Test("While the last file was refused, a reported change looks the name up first: the refused file is not opened again")
    func aRefusedFileIsNotOpenedAgain() throws {
        try withTemporaryDirectory { container in
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            try Self.apply(.good1, container: container)
            try Self.apply(.worldWritable, container: container)
            guard case .rejected = reader.refresh(changeReported: true) else {
                Issue.record("a world-writable file was not refused")
                return
            }
            let faults = SyscallFaults()
            guard case .rejected = faults.withFaults({ reader.refresh(changeReported: true) }) else {
                Issue.record("the same refused file was not refused again")
                return
            }
            #expect(faults.count(of: .open) == 0, "trace: \(faults.trace)")
        }
    }
    #endif
}
