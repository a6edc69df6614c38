import Entitlements
import Foundation
import Glibc
import PropertyList
import EntitlementDefaults
import SharedDefaults
import TestSupport
import Testing

/// Who may own the preferences directory: whoever owns it can rename any file in it, so a
/// directory of another user lets that user swap in a file saved earlier (an unlocked snapshot
/// from before a refund) although the file itself still belongs to the writer. Trusted: the
/// allowed file owners and root.
@Suite(.timeLimit(.minutes(1))) struct DirectoryOwnerTests {
    static let isRoot = geteuid() == 0
    /// Uids that are not ours (no account is needed to own a file).
    static let daemonUser: UInt32 = 65534
    static let thirdUser: UInt32 = 4242

    static func chown(_ path: String, to uid: UInt32) {
        #expect(Glibc.chown(path, uid_t(uid), gid_t(uid)) == 0, "chown \(path)")
    }

    @Test("A preferences directory another user owns is refused, and the last good snapshot kept",
          .enabled(if: isRoot, "needs root to chown a directory to another uid"))
    func foreignDirectoryRefused() throws {
        try withTemporaryDirectory { base in
            let container = base + "/container"
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.publish(Fixture.snapshot(generation: 5))
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            #expect(reader.refresh() == .updated(Fixture.snapshot(generation: 5)))

            // Another user takes the directory; the file in it is still the writer's own.
            Self.chown(writer.directoryPath, to: Self.thirdUser)
            let expected = SharedDefaultsError.foreignOwner(path: writer.directoryPath, owner: Self.thirdUser).description
            #expect(reader.refresh() == .rejected(reason: expected, lastGood: Fixture.snapshot(generation: 5)))
            // A reader with nothing before finds nothing it may trust.
            let fresh = SnapshotReader(suiteName: Fixture.suite, container: container)
            #expect(fresh.refresh() == .rejected(reason: expected, lastGood: nil))
            #expect(SharedDefaults(suiteName: Fixture.suite, container: container).dictionaryRepresentation().isEmpty)
            // And no writer writes into it.
            #expect(throws: SharedDefaultsError.foreignOwner(path: writer.directoryPath, owner: Self.thirdUser)) {
                try SharedDefaults(suiteName: Fixture.suite, container: container).publish(Fixture.snapshot(generation: 6))
            }
        }
    }

    @Test("A reader running as another user than the daemon trusts the daemon's uid and root, nobody else",
          .enabled(if: isRoot, "needs root to chown to other uids"))
    func readerAsAnotherUser() throws {
        try withTemporaryDirectory { base in
            let container = base + "/container"
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.publish(Fixture.snapshot(generation: 5))
            // The daemon runs as `daemonUser`: it owns the file and (at first) the directory.
            Self.chown(writer.path, to: Self.daemonUser)
            Self.chown(writer.directoryPath, to: Self.daemonUser)
            let options = SharedDefaults.Options(allowedOwners: [Self.daemonUser])
            let widget = SnapshotReader(suiteName: Fixture.suite, container: container, options: options)
            #expect(widget.refresh() == .updated(Fixture.snapshot(generation: 5)))
            // A root-owned directory (made by an installer) is trusted too.
            Self.chown(writer.directoryPath, to: 0)
            #expect(SnapshotReader(suiteName: Fixture.suite, container: container, options: options).refresh()
                == .updated(Fixture.snapshot(generation: 5)))
            // A third user's directory is not.
            Self.chown(writer.directoryPath, to: Self.thirdUser)
            let expected = SharedDefaultsError.foreignOwner(path: writer.directoryPath, owner: Self.thirdUser).description
            #expect(widget.refresh() == .rejected(reason: expected, lastGood: Fixture.snapshot(generation: 5)))
        }
    }

    @Test("The owner of the container's Library/Broker is trusted while it and Library are that user's alone; nobody else is",
          .enabled(if: isRoot, "needs root to chown to other uids"))
    func daemonDirectoryOwnerTrusted() throws {
        try withTemporaryDirectory { base in
            let container = base + "/container"
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.publish(Fixture.snapshot(generation: 5))
            let library = container + "/Library", broker = library + "/Broker"
            #expect(mkdir(broker, 0o750) == 0)
            // The daemon's user owns its directories and the file, as a daemon started as that user leaves them.
            for path in [library, broker, writer.directoryPath, writer.path] { Self.chown(path, to: Self.daemonUser) }
            #expect(chmod(library, 0o750) == 0)
            let trusted = SnapshotReader(suiteName: Fixture.suite, container: container)
            #expect(trusted.refresh() == .updated(Fixture.snapshot(generation: 5)))

            // Each way of not being the daemon's alone leaves a fresh reader trusting no one but itself.
            let refusedDirectory = SnapshotReadOutcome.rejected(
                reason: SharedDefaultsError.foreignOwner(path: writer.directoryPath, owner: Self.daemonUser).description, lastGood: nil)
            let spoilers: [(String, () -> Void, () -> Void)] = [
                ("Broker group-writable", { _ = chmod(broker, 0o770) }, { _ = chmod(broker, 0o750) }),
                ("Library group-writable", { _ = chmod(library, 0o770) }, { _ = chmod(library, 0o750) }),
                ("Library another user's", { Self.chown(library, to: Self.thirdUser) }, { Self.chown(library, to: Self.daemonUser) }),
                ("Broker another user's", { Self.chown(broker, to: Self.thirdUser) }, { Self.chown(broker, to: Self.daemonUser) }),
                ("Broker a symbolic link", {
                    _ = rename(broker, library + "/Real")
                    _ = symlink("Real", broker)
                }, {
                    _ = unlink(broker)
                    _ = rename(library + "/Real", broker)
                }),
                ("no Broker", { _ = rename(broker, library + "/Real") }, { _ = rename(library + "/Real", broker) }),
            ]
            for (name, spoil, mend) in spoilers {
                spoil()
                #expect(SnapshotReader(suiteName: Fixture.suite, container: container).refresh() == refusedDirectory, "\(name)")
                mend()
                #expect(SnapshotReader(suiteName: Fixture.suite, container: container).refresh() == .updated(Fixture.snapshot(generation: 5)),
                        "\(name) mended")
            }

            // A file of a third user in the daemon's directory is refused, and the last good kept.
            Self.chown(writer.path, to: Self.thirdUser)
            let expected = SharedDefaultsError.foreignOwner(path: writer.path, owner: Self.thirdUser).description
            #expect(trusted.refresh() == .rejected(reason: expected, lastGood: Fixture.snapshot(generation: 5)))
            // Without the daemon's directory named, the daemon's files are another user's.
            Self.chown(writer.path, to: Self.daemonUser)
            let plain = SnapshotReader(suiteName: Fixture.suite, container: container, options: .init())
            #expect(plain.refresh() == refusedDirectory)
        }
    }

    @Test("The directory rule: the allowed file owners and root")
    func rule() {
        let options = SharedDefaults.Options(allowedOwners: [1000])
        #expect(options.allowsDirectoryOwner(1000))
        #expect(options.allowsDirectoryOwner(0))
        #expect(!options.allowsDirectoryOwner(1001))
        #expect(SharedDefaults.Options().allowsDirectoryOwner(geteuid()))
    }
}
