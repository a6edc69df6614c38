import EntitlementModel
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

    @Test("The directory rule: the allowed file owners and root")
    func rule() {
        let options = SharedDefaults.Options(allowedOwners: [1000])
        #expect(options.allowsDirectoryOwner(1000))
        #expect(options.allowsDirectoryOwner(0))
        #expect(!options.allowsDirectoryOwner(1001))
        #expect(SharedDefaults.Options().allowsDirectoryOwner(geteuid()))
    }
}
