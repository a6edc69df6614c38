import Foundation
import Glibc
import SharedDefaults
import SystemShims
import TestSupport
import Testing

/// How a kept preferences directory is rechecked once entries in it changed: its name is looked
/// up in the directory the path led to when it was opened, not the whole path walked again, and
/// whatever that look-up cannot prove is this directory goes back to the path.
@Suite(.timeLimit(.minutes(1))) struct DirectoryRecheckTests {
    static func preferences(in container: String) throws -> String {
        try ReadPathTests.preferences(in: container)
    }

    #if ENABLE_MOCKING
    @Test("A recheck costs an fstat while the directory is as known, and one fstatat of its name once entries changed")
    func recheckLooksUpOnlyTheName() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            var directory = try requireNonNil(try ReadPathTests.open(path))
            let unchanged = SyscallFaults()
            let keptUnchanged = unchanged.withFaults { directory.recheck(at: Clocks.coarseMonotonicNanoseconds) }
            #expect(keptUnchanged)
            #expect(unchanged.trace == [.fstat])

            try Fixture.writeRaw([1], to: path + "/other.plist")  // changes the directory's times
            let changed = SyscallFaults()
            let keptChanged = changed.withFaults { directory.recheck(at: Clocks.coarseMonotonicNanoseconds) }
            #expect(keptChanged)
            #expect(changed.trace == [.fstat, .fstatat])
        }
    }

    @Test("A caller that expects a change (a woken reader, a writer after its rename) pays only the look-up by name")
    func anExpectedChangeIsLookedUpAtOnce() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            var directory = try requireNonNil(try ReadPathTests.open(path))
            try Fixture.writeRaw([1], to: path + "/other.plist")  // changes the directory's times
            let changed = SyscallFaults()
            let keptChanged = changed.withFaults { directory.recheck(at: Clocks.coarseMonotonicNanoseconds, changeExpected: true) }
            #expect(keptChanged)
            #expect(changed.trace == [.fstatat])

            let unchanged = SyscallFaults()
            let keptUnchanged = unchanged.withFaults { directory.recheck(at: Clocks.coarseMonotonicNanoseconds, changeExpected: true) }
            #expect(keptUnchanged)
            #expect(unchanged.trace == [.fstatat])
        }
    }

    @Test("A writer's next publish rechecks its directory with one look-up by name")
    func aPublishLooksTheDirectoryUpOnce() throws {
        try withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            try defaults.set(1, forKey: "count")
            let faults = SyscallFaults()
            try faults.withFaults { try defaults.set(2, forKey: "count") }
            #expect(faults.count(of: .fstatat) == 2, "the directory's name and the suite file: \(faults.trace)")
            #expect(faults.count(of: .fstat) == 2, "the new file's mode and, after the rename, its key: \(faults.trace)")
        }
    }
    #endif

    @Test("A kept directory whose mode changed is not kept, even with its name unchanged")
    func recheckSeesAChangedMode() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            var directory = try requireNonNil(try ReadPathTests.open(path))
            #expect(chmod(path, 0o700) == 0)
            let kept = directory.recheck(at: Clocks.coarseMonotonicNanoseconds)
            #expect(!kept)
        }
    }

    @Test("A directory whose name now holds a symlink to it is not kept, and the path is then refused")
    func aNameTurnedIntoASymlinkIsNotKept() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.set("first", forKey: "k")
            #expect(reader.string(forKey: "k") == "first")
            var kept = try requireNonNil(try ReadPathTests.open(path))

            let real = container + "/Library/Real"
            try FileManager.default.moveItem(atPath: path, toPath: real)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: real)
            try Fixture.writeRaw(try Fixture.bytes(["k": .string("second")]), to: real + "/" + Fixture.suite + ".plist")

            let stillKept = kept.recheck(at: Clocks.coarseMonotonicNanoseconds)
            #expect(!stillKept, "the name no longer leads to the kept directory itself")
            #expect(throws: SharedDefaultsError.directoryIsSymlink(path: path)) { try reader.reload() }
            #expect(reader.string(forKey: "k") == "first", "the last good contents are kept")
        }
    }

    @Test("A path through a symlinked ancestor is followed as before, and its directory kept while only entries change")
    func aSymlinkedAncestorIsFollowed() throws {
        try withTemporaryDirectory { base in
            let realContainer = base + "/real"
            let path = try Self.preferences(in: realContainer)
            let container = base + "/link"
            try FileManager.default.createSymbolicLink(atPath: container, withDestinationPath: realContainer)
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.set("first", forKey: "k")
            #expect(reader.string(forKey: "k") == "first")
            var kept = try requireNonNil(try ReadPathTests.open(container + "/Library/Preferences"))
            try Fixture.writeRaw([1], to: path + "/other.plist")
            let stillKept = kept.recheck(at: Clocks.coarseMonotonicNanoseconds)
            #expect(stillKept)
            try writer.set("second", forKey: "k")
            #expect(reader.string(forKey: "k") == "second")
        }
    }

    @Test("A directory renamed away while a publish is under way is noticed by the next publish, which goes to the path")
    func aDirectoryRenamedDuringAPublishIsNoticedByTheNext() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.set(1, forKey: "generation")
            let moved = container + "/Library/Moved"
            try writer.update(beforeReplacing: { () throws(Errno) in
                // Between the publish's directory check and its rename: the directory goes away
                // and a new one takes its place.
                guard rename(path, moved) == 0, mkdir(path, 0o750) == 0 else { throw Errno.current }
            }) { dictionary in dictionary["generation"] = .integer(2) }
            try writer.set(3, forKey: "generation")
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            #expect(reader.integer(forKey: "generation") == 3, "the next publish still went to the directory renamed away")
        }
    }
}
