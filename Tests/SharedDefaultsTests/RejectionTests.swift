import Entitlements
import Foundation
import Glibc
import PropertyList
import EntitlementDefaults
import SharedDefaults
import SystemShims
import TestSupport
import Testing

/// Every kind of bad suite file a reader must refuse while keeping its last good snapshot.
enum BadFile: String, CaseIterable, Sendable {
    case symlink, directory, fifo, foreignOwner, worldWritableFile, worldWritableDirectory, oversized
    case truncated, garbage, rootNotDictionary, unknownSchemaVersion, lowerGeneration

    static let limit = 4096

    /// Whether a writer must refuse to touch it (as opposed to replacing it or writing normally).
    var writerRefuses: Bool {
        switch self {
        case .symlink, .directory, .fifo, .foreignOwner, .worldWritableFile, .worldWritableDirectory, .oversized: true
        case .truncated, .garbage, .rootNotDictionary, .unknownSchemaVersion, .lowerGeneration: false
        }
    }

    /// Puts the bad file in place of the good one. `scratch` is a directory outside the suite.
    func install(at defaults: SharedDefaults, scratch: String) throws {
        let path = defaults.path
        let newer = try Fixture.bytes(of: Fixture.snapshot(generation: 9))
        switch self {
        case .symlink:
            try Fixture.writeRaw(newer, to: scratch + "/target.plist")
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: scratch + "/target.plist")
        case .directory:
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .fifo:
            try FileManager.default.removeItem(atPath: path)
            guard mkfifo(path, 0o640) == 0 else { throw Errno.current }
        case .foreignOwner:
            try Fixture.writeRaw(newer, to: path)
            guard chown(path, 65534, 65534) == 0 else { throw Errno.current }
        case .worldWritableFile:
            try Fixture.writeRaw(newer, to: path, mode: 0o646)
        case .worldWritableDirectory:
            try Fixture.writeRaw(newer, to: path)
            try FileSystem.changeMode(defaults.directoryPath, 0o777)
        case .oversized:
            try Fixture.writeRaw(
                Fixture.bytes([
                    EntitlementSnapshot.defaultsKey: Fixture.snapshot(generation: 9).propertyList,
                    "padding": .data([UInt8](repeating: 0, count: 2 * Self.limit)),
                ]), to: path)
        case .truncated:
            try Fixture.writeRaw(Array(newer[..<(newer.count / 2)]), to: path)
        case .garbage:
            try Fixture.writeRaw((0..<512).map { _ in UInt8.random(in: 0...255) }, to: path)
        case .rootNotDictionary:
            try Fixture.writeRaw(PropertyListCodec.encode(.array([Fixture.snapshot(generation: 9).propertyList])), to: path)
        case .unknownSchemaVersion:
            try Fixture.writeRaw(Fixture.bytes(of: Fixture.snapshot(generation: 9, schemaVersion: 99)), to: path)
        case .lowerGeneration:
            try Fixture.writeRaw(Fixture.bytes(of: Fixture.snapshot(generation: 3)), to: path)
        }
    }

    /// Takes the bad file away again and installs a valid snapshot of `generation`.
    func repair(_ defaults: SharedDefaults, generation: Int64) throws {
        try FileSystem.changeMode(defaults.directoryPath, 0o750)
        try FileManager.default.removeItem(atPath: defaults.path)
        try Fixture.writeRaw(Fixture.bytes(of: Fixture.snapshot(generation: generation)), to: defaults.path)
    }

    /// Whether `error` is the file-level refusal expected for this kind (`nil` when the file
    /// itself is fine and only the snapshot inside is refused).
    func matches(_ error: SharedDefaultsError?, defaults: SharedDefaults) -> Bool? {
        let path = defaults.path
        switch self {
        case .symlink: return error == .fileIsSymlink(path: path)
        case .directory: return error == .notRegularFile(path: path, type: "directory")
        case .fifo: return error == .notRegularFile(path: path, type: "fifo")
        case .foreignOwner: return error == .foreignOwner(path: path, owner: 65534)
        case .worldWritableFile: return error == .fileWorldWritable(path: path)
        case .worldWritableDirectory: return error == .directoryWorldWritable(path: defaults.directoryPath)
        case .oversized:
            if case .tooLarge(path, _, Self.limit) = error { return true }
            return false
        case .truncated, .garbage:
            if case .undecodable(path, _) = error { return true }
            return false
        case .rootNotDictionary: return error == .rootNotDictionary(path: path, type: "an array")
        case .unknownSchemaVersion, .lowerGeneration: return nil
        }
    }

    /// A phrase the snapshot reader's reason must contain.
    var reasonPhrase: String {
        switch self {
        case .symlink: "symbolic link"
        case .directory: "directory, not a regular file"
        case .fifo: "fifo, not a regular file"
        case .foreignOwner: "owned by uid 65534"
        case .worldWritableFile, .worldWritableDirectory: "world-writable"
        case .oversized: "exceeds the limit of 4096 bytes"
        case .truncated, .garbage: "not a property list"
        case .rootNotDictionary: "root is an array"
        case .unknownSchemaVersion: "schemaVersion 99"
        case .lowerGeneration: "generation 3 is older than the last good 5"
        }
    }
}

@Suite(.timeLimit(.minutes(1))) struct RejectionTests {
    @Test(arguments: BadFile.allCases)
    func readersRefuseTheFileAndKeepTheLastGood(bad: BadFile) throws {
        if bad == .foreignOwner && geteuid() != 0 { return }  // chown to another user needs root
        try withTemporaryDirectory("reject-\(bad.rawValue)") { base in
            let container = base + "/container"
            let options = SharedDefaults.Options(maxFileSize: BadFile.limit)
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container, options: options)
            try writer.set("foreign", forKey: "appSetting")
            try writer.publish(Fixture.snapshot(generation: 5))
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container, options: options)
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container, options: options)
            let good = Fixture.snapshot(generation: 5)
            #expect(reader.refresh() == .updated(good))
            #expect(defaults.string(forKey: "appSetting") == "foreign")

            try bad.install(at: writer, scratch: base)

            for attempt in 0..<2 {
                let outcome = reader.refresh()
                switch outcome {
                case .rejected(let reason, let lastGood):
                    #expect(lastGood == good)
                    #expect(reason.contains(writer.path) || reason.contains(writer.directoryPath), "got: \(reason)")
                    #expect(reason.contains(bad.reasonPhrase), "got: \(reason)")
                    #expect(!reason.contains("\n"))
                case .unchanged(let lastGood) where attempt > 0 && bad.matches(nil, defaults: writer) == nil:
                    #expect(lastGood == good)
                default:
                    Issue.record("attempt \(attempt): expected a rejection, got \(outcome)")
                }
                #expect(reader.lastGood == good)
            }
            // The plain defaults API keeps serving the last good dictionary and says why.
            _ = defaults.dictionaryRepresentation()
            if let matched = bad.matches(defaults.lastError, defaults: writer) {
                #expect(defaults.string(forKey: "appSetting") == "foreign")
                #expect(matched, "lastError: \(String(describing: defaults.lastError))")
                #expect(throws: SharedDefaultsError.self) { try defaults.reload() }
                #expect(defaults.dictionary(forKey: EntitlementSnapshot.defaultsKey) == good.propertyList.dictionaryValue)
            }

            // A writer refuses files it must not trust, and leaves them exactly as they were.
            let lstatBefore = try fileStatus(atPath: writer.path, followSymlinks: false)
            let targetBefore = Fixture.contents(of: base + "/target.plist")
            if bad.writerRefuses {
                #expect(throws: SharedDefaultsError.self) { try writer.set("x", forKey: "other") }
                let lstatAfter = try fileStatus(atPath: writer.path, followSymlinks: false)
                #expect(lstatAfter.inode == lstatBefore.inode && lstatAfter.type == lstatBefore.type)
                #expect(Fixture.contents(of: base + "/target.plist") == targetBefore)
                try bad.repair(writer, generation: 10)
            } else {
                try writer.set("x", forKey: "other")
                try writer.publish(Fixture.snapshot(generation: 10))
            }
            // And the reader recovers as soon as a newer good file appears.
            #expect(reader.refresh() == .updated(Fixture.snapshot(generation: 10)))
            #expect(throws: Never.self) { try defaults.reload() }
            #expect(defaults.lastError == nil)
        }
    }

    @Test func aMissingSnapshotKeyKeepsTheLastGood() throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            #expect(reader.refresh() == .missing(lastGood: nil))
            try writer.publish(Fixture.snapshot(generation: 1))
            #expect(reader.refresh() == .updated(Fixture.snapshot(generation: 1)))
            #expect(reader.refresh() == .unchanged(Fixture.snapshot(generation: 1)))
            try writer.removeObject(forKey: EntitlementSnapshot.defaultsKey)
            #expect(reader.refresh() == .missing(lastGood: Fixture.snapshot(generation: 1)))
            try FileManager.default.removeItem(atPath: writer.path)
            #expect(reader.refresh() == .missing(lastGood: Fixture.snapshot(generation: 1)))
        }
    }

    @Test func aSymlinkedPreferencesDirectoryIsRefused() throws {
        try withTemporaryDirectory { base in
            let real = SharedDefaults(suiteName: Fixture.suite, container: base + "/real")
            try real.publish(Fixture.snapshot(generation: 1))
            try FileManager.default.createDirectory(atPath: base + "/fake/Library", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: base + "/fake/Library/Preferences", withDestinationPath: real.directoryPath)
            let reader = SnapshotReader(suiteName: Fixture.suite, container: base + "/fake")
            guard case .rejected(let reason, nil) = reader.refresh() else {
                Issue.record("a symlinked directory was followed")
                return
            }
            #expect(reason.contains("directory is a symbolic link"), "got: \(reason)")
            let writer = SharedDefaults(suiteName: Fixture.suite, container: base + "/fake")
            #expect(throws: SharedDefaultsError.directoryIsSymlink(path: writer.directoryPath)) { try writer.set(1, forKey: "k") }
        }
    }
}
