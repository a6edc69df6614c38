import Foundation
import Glibc
import PropertyList
import SharedDefaults
import SystemShims
import TestSupport
import Testing

/// The read path's two layers: ``ValidatedDirectory`` (which preferences directory may be read
/// from) and ``ReadCache`` (when an unchanged file is answered from the last good read).
@Suite(.timeLimit(.minutes(1))) struct ReadPathTests {
    /// A uid that neither owns the test's files nor is root.
    static let thirdUser: UInt32 = 54_321

    static func preferences(in container: String) throws -> String {
        let path = container + "/Library/Preferences"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        return path
    }

    static func open(_ path: String, options: SharedDefaults.Options = .init()) throws(SharedDefaultsError) -> ValidatedDirectory? {
        try ValidatedDirectory.open(path, options: options, at: Clocks.coarseMonotonicNanoseconds)
    }

    @Test("A validated directory is the one at the path, as it was checked")
    func validatesAGoodDirectory() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            #expect(try Self.open(container + "/Missing") == nil)
            let directory = try requireNonNil(try Self.open(path))
            let atPath = try fileStatus(atPath: path, followSymlinks: false)
            #expect(directory.status.device == atPath.device && directory.status.inode == atPath.inode)
            #expect(directory.status.permissions == 0o750)
        }
    }

    @Test("A path is kept by its last real name: trailing slashes are ignored; an empty, `.` or `..` name is refused")
    func pathsWithoutARealName() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            var kept = try requireNonNil(try Self.open(path + "//"))
            // Kept by the name `Preferences` in `Library`: renamed away, it is no longer the one.
            #expect(rename(path, container + "/Library/Moved") == 0)
            #expect(chmod(container + "/Library/Moved", 0o700) == 0)
            let stillKept = kept.recheck(at: Clocks.coarseMonotonicNanoseconds)
            #expect(!stillKept)
            for unnamed in ["", path + "/.", path + "/..", container + "/Library/Moved/./"] {
                #expect(throws: SharedDefaultsError.system(path: unnamed, operation: "open", errno: .invalidArgument)) { try Self.open(unnamed) }
            }
        }
    }

    @Test("No validated directory for a symlink, a file, a world-writable directory or a disallowed owner")
    func refusesABadDirectory() throws {
        try withTemporaryDirectory { container in
            let real = try Self.preferences(in: container)
            let link = container + "/Link"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
            #expect(throws: SharedDefaultsError.directoryIsSymlink(path: link)) { try Self.open(link) }

            let file = container + "/File"
            try Fixture.writeRaw([1], to: file)
            #expect(throws: SharedDefaultsError.notADirectory(path: file, type: "regular")) { try Self.open(file) }

            #expect(chmod(real, 0o757) == 0)
            #expect(throws: SharedDefaultsError.directoryWorldWritable(path: real)) { try Self.open(real) }
            #expect(chmod(real, 0o750) == 0)

            // Owned by a user that is neither an allowed file owner nor root.
            let owner = geteuid()
            if owner == 0 {
                #expect(chown(real, Self.thirdUser, getegid()) == 0)
                #expect(throws: SharedDefaultsError.foreignOwner(path: real, owner: Self.thirdUser)) { try Self.open(real) }
            } else {
                let options = SharedDefaults.Options(allowedOwners: [owner &+ 1])
                #expect(throws: SharedDefaultsError.foreignOwner(path: real, owner: owner)) { try Self.open(real, options: options) }
            }
        }
    }

    @Test("A kept directory stays valid while only its entries change, not once it is made unsafe")
    func recheckKeepsOnlyTheSameSafeDirectory() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            var directory = try requireNonNil(try Self.open(path))
            let now = Clocks.coarseMonotonicNanoseconds
            let untouched = directory.recheck(at: now)
            #expect(untouched)
            try Fixture.writeRaw([1], to: path + "/other.plist")  // changes the directory's times
            let entryAdded = directory.recheck(at: now)
            #expect(entryAdded)
            #expect(directory.status == (try directory.descriptor.fstat()), "the new times are now the known ones")
            let late = directory.recheck(at: directory.openedAt &+ ValidatedDirectory.revalidationInterval)
            #expect(!late, "the path is opened again on time")
            #expect(chmod(path, 0o757) == 0)
            let madeWorldWritable = directory.recheck(at: now)
            #expect(!madeWorldWritable)
        }
    }

    @Test("A directory renamed away and replaced is not kept: the replacement is validated")
    func aReplacedDirectoryIsRevalidated() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            var kept = try requireNonNil(try Self.open(path))
            let now = Clocks.coarseMonotonicNanoseconds
            try FileManager.default.moveItem(atPath: path, toPath: container + "/Library/Old")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            let stillKept = kept.recheck(at: now)
            #expect(!stillKept, "the path no longer names the kept directory")

            // Through a reader: the replacement is read at once, and refused when it is unsafe.
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.set("first", forKey: "k")
            #expect(reader.string(forKey: "k") == "first")
            try FileManager.default.moveItem(atPath: path, toPath: container + "/Library/Older")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            try Fixture.writeRaw(try Fixture.bytes(["k": .string("second")]), to: writer.path)
            #expect(chmod(path, 0o757) == 0)
            #expect(throws: SharedDefaultsError.directoryWorldWritable(path: path)) { try reader.reload() }
            #expect(reader.string(forKey: "k") == "first", "the last good contents are kept")
            #expect(chmod(path, 0o750) == 0)
            #expect(try reader.reload() == .changed)
            #expect(reader.string(forKey: "k") == "second")
        }
    }

    @Test("An unchanged file is answered from the last good read; a refused one is refused again unread")
    func unchangedAnswersFromTheCache() throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.set("one", forKey: "k")
            #expect(try reader.reload() == .changed)
            var reloads: [ReloadResult] = []
            let unchangedReads = try fileReads { for _ in 0..<10 { reloads.append(try reader.reload()) } }
            #expect(reloads == Array(repeating: .unchanged, count: 10))
            #expect(unchangedReads == 0)

            try Fixture.writeRaw([0x62, 0x61, 0x64], to: reader.path)
            #expect(throws: SharedDefaultsError.self) { try reader.reload() }
            let refused = try requireNonNil(reader.lastError)
            var again: (any Error)?
            let refusedReads = try fileReads { do { _ = try reader.reload() } catch { again = error } }
            #expect((again as? SharedDefaultsError) == refused)
            #expect(refusedReads == 0, "the same bad file is not read again")
            #expect(reader.string(forKey: "k") == "one")
        }
    }

    @Test("The cache policy: the good key answers unchanged, the refused key its error, any other key a read")
    func readCachePolicy() throws {
        try withTemporaryDirectory { container in
            let path = try Self.preferences(in: container)
            let directory = try requireNonNil(try Self.open(path))
            try Fixture.writeRaw([1], to: path + "/a")
            try Fixture.writeRaw([2, 2], to: path + "/b")
            let a = ReadCache.Key(directory: directory.status, file: try directory.descriptor.status(ofEntry: "a"))
            let b = ReadCache.Key(directory: directory.status, file: try directory.descriptor.status(ofEntry: "b"))
            var cache = ReadCache()
            let first = cache.answer(for: a)
            #expect(first == .read)
            let file = try FileDescriptor.open("a", relativeTo: directory.descriptor, .readOnly, options: [.closeOnExec])
            cache.accept(["k": .integer(1)], key: a, pinning: SharedFileDescriptor(file))
            let (good, unknown) = (cache.answer(for: a), cache.answer(for: b))
            #expect(good == .unchanged && unknown == .read)
            let error = SharedDefaultsError.fileWorldWritable(path: path + "/b")
            _ = cache.refuse(error, key: b)
            let refusedAgain = cache.answer(for: b)
            #expect(refusedAgain == .refusedAgain(error))
            #expect(cache.contents == ["k": .integer(1)], "a refusal keeps the last good contents")
            let goodAgain = cache.answer(for: a)
            #expect(goodAgain == .unchanged && cache.lastError == nil)
            // Another directory (or the same one made to another mode or owner) is another key.
            var other = a
            other.directoryInode &+= 1
            let otherDirectory = cache.answer(for: other)
            #expect(otherDirectory == .read)
        }
    }
}
