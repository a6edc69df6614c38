import Glibc
import EntitlementDefaults
import SharedDefaults
import TestSupport
import Testing

/// `Options.allowedOwners` as callers see it, whether it holds one uid (kept without a set) or
/// several: what is read back is what was given, and the file and directory checks follow it.
@Suite(.timeLimit(.minutes(1))) struct AllowedOwnersTests {
    static let me = UInt32(geteuid())

    @Test("By default only this process's user may own the file; root and that user may own the directory")
    func defaultOwners() {
        let options = SharedDefaults.Options()
        #expect(options.allowedOwners == [Self.me])
        #expect(options.allowedOwners == SharedDefaults.Options.effectiveUserOnly)
        #expect(options.allowsDirectoryOwner(Self.me) && options.allowsDirectoryOwner(0))
        #expect(!options.allowsDirectoryOwner(Self.me &+ 4242))
    }

    @Test("One, several or no owners: read back as given, and only they (and root) own a trusted directory")
    func givenOwners() {
        let one = SharedDefaults.Options(allowedOwners: [7])
        #expect(one.allowedOwners == [7])
        #expect(one.allowsDirectoryOwner(7) && one.allowsDirectoryOwner(0) && !one.allowsDirectoryOwner(8))
        let several = SharedDefaults.Options(allowedOwners: [7, 8, 9])
        #expect(several.allowedOwners == [7, 8, 9])
        #expect(several.allowsDirectoryOwner(8) && !several.allowsDirectoryOwner(10))
        let none = SharedDefaults.Options(allowedOwners: [])
        #expect(none.allowedOwners.isEmpty)
        #expect(none.allowsDirectoryOwner(0) && !none.allowsDirectoryOwner(7))
    }

    @Test("Changing allowedOwners changes both checks")
    func changedOwners() {
        var options = SharedDefaults.Options()
        options.allowedOwners = [7]
        #expect(options.allowedOwners == [7] && options.allowsDirectoryOwner(7) && !options.allowsDirectoryOwner(Self.me &+ 4242))
        options.allowedOwners.insert(8)
        #expect(options.allowedOwners == [7, 8] && options.allowsDirectoryOwner(8))
        options.allowedOwners.remove(7)
        #expect(options.allowedOwners == [8] && !options.allowsDirectoryOwner(7))
        options.allowedOwners = []
        #expect(options.allowedOwners.isEmpty && !options.allowsDirectoryOwner(8))
    }

    @Test("A reader that does not allow the file's owner refuses the file; the default reader reads it")
    func fileOwnerChecked() throws {
        try withTemporaryDirectory { base in
            let container = base + "/container"
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.publish(Fixture.snapshot(generation: 3))
            #expect(SnapshotReader(suiteName: Fixture.suite, container: container).refresh() == .updated(Fixture.snapshot(generation: 3)))
            // Root may own the directory, so as root the file's own check is the one that refuses.
            let stranger = SharedDefaults.Options(allowedOwners: [Self.me &+ 4242])
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container, options: stranger)
            let refusal = Self.me == 0
                ? SharedDefaultsError.foreignOwner(path: writer.path, owner: Self.me)
                : SharedDefaultsError.foreignOwner(path: writer.directoryPath, owner: Self.me)
            #expect(reader.refresh() == .rejected(reason: refusal.description, lastGood: nil))
        }
    }
}
