import Foundation
import Glibc
import SharedDefaults
import SystemShims
import TestSupport
import Testing

/// A publish must reach a watcher of the preferences directory as one event: a widget process
/// wakes once per publish, not once for the temporary file's creation and again for its rename.
@Suite(.timeLimit(.minutes(1))) struct StagedPublishTests {
    /// Everything a directory watcher could be woken by, whatever mask it chose.
    static let everyNameChange = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE | IN_MODIFY | IN_ATTRIB)
        | UInt32(IN_EXCL_UNLINK)

    @Test func aPublishShowsTheWatchedDirectoryOnlyTheRenameOfTheSuiteFile() throws {
        try withTemporaryDirectory { container in
            let store = SharedDefaults(suiteName: "group.test", container: container)
            try store.set(1, forKey: "generation")  // creates the directory, the lock file and the staging directory
            let inotify = inotify_init1(CInt(IN_NONBLOCK | IN_CLOEXEC))
            try #require(inotify >= 0)
            defer { close(inotify) }
            try #require(inotify_add_watch(inotify, container + "/Library/Preferences", Self.everyNameChange) >= 0)
            for generation in 2...4 {
                try store.set(generation, forKey: "generation")
                let events = Self.readEvents(inotify)
                #expect(events.map(\.name) == ["group.test.plist"], "publish \(generation): \(events)")
                #expect(events.allSatisfy { $0.mask & UInt32(IN_MOVED_TO) != 0 }, "publish \(generation): \(events)")
            }
        }
    }

    @Test func somethingElseAtTheStagingNameMakesThePublishFailAndKeepsTheFile() throws {
        try withTemporaryDirectory { container in
            let preferences = container + "/Library/Preferences"
            try FileManager.default.createDirectory(atPath: preferences, withIntermediateDirectories: true)
            #expect(symlink("/tmp", preferences + "/" + AtomicFile.Staging.name) == 0)
            let store = SharedDefaults(suiteName: "group.test", container: container)
            #expect(throws: SharedDefaultsError.self) { try store.set(1, forKey: "generation") }
            #expect(!FileManager.default.fileExists(atPath: preferences + "/group.test.plist"))
        }
    }

    @Test func aRemovedStagingDirectoryIsMadeAgain() throws {
        try withTemporaryDirectory { container in
            let preferences = container + "/Library/Preferences"
            let store = SharedDefaults(suiteName: "group.test", container: container)
            try store.set(1, forKey: "generation")
            #expect(rmdir(preferences + "/" + AtomicFile.Staging.name) == 0)
            try store.set(2, forKey: "generation")
            #expect(SharedDefaults(suiteName: "group.test", container: container).integer(forKey: "generation") == 2)
            #expect(try fileStatus(atPath: preferences + "/" + AtomicFile.Staging.name).permissions
                == fileStatus(atPath: preferences).permissions)
        }
    }

    static func readEvents(_ inotify: CInt) -> [(name: String, mask: UInt32)] {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var events: [(name: String, mask: UInt32)] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            guard count > 0 else { return events }
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= count {
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = raw[(offset + header)..<(offset + header + length)].prefix { $0 != 0 }
                    events.append((String(decoding: nameBytes, as: UTF8.self), mask))
                    offset += header + length
                }
            }
        }
    }
}
