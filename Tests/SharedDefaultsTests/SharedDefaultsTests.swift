import Entitlements
import Foundation
import PropertyList
import EntitlementDefaults
import SharedDefaults
import SystemShims
import TestSupport
import Synchronization
import Testing

@Suite(.timeLimit(.minutes(1))) struct SharedDefaultsTests {
    @Test func setAndGetEveryType() throws {
        try withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            let date = Date(timeIntervalSince1970: 1_700_000_000.25)
            try defaults.set(true, forKey: "bool")
            try defaults.set(42, forKey: "int")
            try defaults.set(2.5, forKey: "double")
            try defaults.set("plus", forKey: "string")
            try defaults.set(date, forKey: "date")
            try defaults.set(.data([1, 2, 3]), forKey: "data")
            try defaults.set(.array([.integer(1), .string("a")]), forKey: "array")
            try defaults.set(.dictionary(["k": .boolean(false)]), forKey: "dictionary")

            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            #expect(reader.bool(forKey: "bool"))
            #expect(reader.integer(forKey: "int") == 42)
            #expect(reader.double(forKey: "double") == 2.5)
            #expect(reader.string(forKey: "string") == "plus")
            #expect(reader.date(forKey: "date") == date)
            #expect(reader.data(forKey: "data") == [1, 2, 3])
            #expect(reader.array(forKey: "array") == [.integer(1), .string("a")])
            #expect(reader.dictionary(forKey: "dictionary") == ["k": .boolean(false)])
            #expect(reader.object(forKey: "int") == .integer(42))
            #expect(reader.object(forKey: "absent") == nil)
            #expect(!reader.bool(forKey: "absent") && reader.integer(forKey: "absent") == 0 && reader.string(forKey: "int") == nil)

            try defaults.removeObject(forKey: "int")
            try defaults.set(nil, forKey: "string")
            #expect(reader.object(forKey: "int") == nil && reader.object(forKey: "string") == nil)
            #expect(reader.dictionaryRepresentation().map(\.key).sorted() == ["array", "bool", "data", "date", "dictionary", "double"])
            #expect(reader.lastError == nil)
        }
    }

    @Test func writerCreatesTheLayoutWithFixedModes() throws {
        try withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container + "/nested/container")
            try defaults.set(1, forKey: "k")
            #expect(defaults.path == container + "/nested/container/Library/Preferences/\(Fixture.suite).plist")
            #expect(defaults.fileURL.path == defaults.path)
            #expect(try Fixture.permissions(of: defaults.path) == 0o640)
            #expect(try Fixture.permissions(of: defaults.lockFilePath) == 0o640)
            #expect(defaults.lockFilePath.hasSuffix("/.\(Fixture.suite).plist.lock"))
            for directory in ["/nested", "/nested/container", "/nested/container/Library", "/nested/container/Library/Preferences"] {
                #expect(try Fixture.permissions(of: container + directory) == 0o750, "\(directory)")
            }
            let bytes = try #require(Fixture.contents(of: defaults.path))
            #expect(bytes.starts(with: Array("bplist00".utf8)))
        }
    }

    @Test func registeredDefaultsAreFallbacksAndNeverWritten() throws {
        try withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            defaults.register(defaults: ["limit": .integer(3), "theme": .string("dark")])
            #expect(defaults.integer(forKey: "limit") == 3)
            #expect(!FileManager.default.fileExists(atPath: defaults.path))
            try defaults.set(10, forKey: "limit")
            #expect(defaults.integer(forKey: "limit") == 10)
            #expect(defaults.string(forKey: "theme") == "dark")
            #expect(defaults.dictionaryRepresentation() == ["limit": .integer(10), "theme": .string("dark")])
            let onDisk = try PropertyListCodec.decode(#require(Fixture.contents(of: defaults.path)))
            #expect(onDisk == .dictionary(["limit": .integer(10)]))
            try defaults.removeObject(forKey: "limit")
            #expect(defaults.integer(forKey: "limit") == 3)
        }
    }

    @Test func foreignKeysSurviveAPublish() throws {
        try withTemporaryDirectory { container in
            let app = SharedDefaults(suiteName: Fixture.suite, container: container)
            let daemon = SharedDefaults(suiteName: Fixture.suite, container: container)
            try app.set("foreign", forKey: "appSetting")
            try daemon.publish(Fixture.snapshot(generation: 1))
            try app.set(.integer(7), forKey: "another")
            try daemon.publish(Fixture.snapshot(generation: 2))
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            #expect(reader.string(forKey: "appSetting") == "foreign")
            #expect(reader.integer(forKey: "another") == 7)
            let snapshot = try EntitlementSnapshot(propertyList: #require(reader.object(forKey: EntitlementSnapshot.defaultsKey)))
            #expect(snapshot == Fixture.snapshot(generation: 2))
        }
    }

    @Test func unchangedFileIsNotReadAgain() throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.set("one", forKey: "k")
            var value: String?
            let firstReads = try fileReads { value = reader.string(forKey: "k") }
            #expect(value == "one" && firstReads > 0)
            var values: [String?] = []
            var reload: ReloadResult?
            let unchangedReads = try fileReads {
                for _ in 0..<100 { values.append(reader.string(forKey: "k")) }
                reload = try reader.reload()
            }
            #expect(values == Array(repeating: "one", count: 100) && reload == .unchanged)
            #expect(unchangedReads == 0)
            try writer.set("two", forKey: "k")
            let changedReads = try fileReads { value = reader.string(forKey: "k") }
            #expect(value == "two" && changedReads > 0)
        }
    }

    @Test func aWriterDoesNotDecodeWhatItWroteItself() throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            var last = 0
            var reload: ReloadResult?
            let ownReads = try fileReads {
                for value in 0..<5 { try writer.set(value, forKey: "k") }
                try writer.publish(Fixture.snapshot(generation: 1))
                last = writer.integer(forKey: "k")
                reload = try writer.reload()
            }
            #expect(last == 4 && reload == .unchanged)
            #expect(ownReads == 0)
            // Another writer's file is read and its keys are kept by the next write.
            let other = SharedDefaults(suiteName: Fixture.suite, container: container)
            let otherReads = try fileReads { try other.set("theirs", forKey: "other") }
            #expect(otherReads > 0)
            let writerReads = try fileReads { try writer.set(5, forKey: "k") }
            #expect(writerReads > 0)
            #expect(writer.string(forKey: "other") == "theirs" && writer.integer(forKey: "k") == 5)
            // A file replaced behind the writer's back (no lock) is seen as changed.
            try Fixture.writeRaw(try Fixture.bytes(["k": .integer(6)]), to: writer.path)
            #expect(try writer.reload() == .changed)
            #expect(writer.integer(forKey: "k") == 6)
        }
    }

    @Test func aRemovedAndRecreatedDirectoryIsFollowed() throws {
        try withTemporaryDirectory { container in
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.set("first", forKey: "k")
            #expect(reader.string(forKey: "k") == "first")
            try FileManager.default.removeItem(atPath: container + "/Library")
            #expect(try reader.reload() == .missing)
            // The writer recreates the directory (its kept descriptor is of the removed one).
            try writer.set("second", forKey: "k")
            #expect(try fileStatus(atPath: writer.directoryPath).permissions == 0o750)
            #expect(reader.string(forKey: "k") == "second")
            // Renamed away and replaced by another directory: the new one is read at once.
            try FileManager.default.moveItem(atPath: writer.directoryPath, toPath: container + "/Library/Old")
            try FileManager.default.createDirectory(atPath: writer.directoryPath, withIntermediateDirectories: false)
            try Fixture.writeRaw(try Fixture.bytes(["k": .string("third")]), to: writer.path)
            #expect(try reader.reload() == .changed)
            #expect(reader.string(forKey: "k") == "third")
        }
    }

    @Test func reloadReportsMissingChangedAndUnchanged() throws {
        try withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            #expect(try defaults.reload() == .missing)
            #expect(defaults.dictionaryRepresentation().isEmpty && defaults.lastError == nil)
            try writer.set(1, forKey: "k")
            #expect(try defaults.reload() == .changed)
            #expect(try defaults.reload() == .unchanged)
            try FileManager.default.removeItem(atPath: defaults.path)
            #expect(try defaults.reload() == .missing)
            #expect(defaults.object(forKey: "k") == nil)
        }
    }

    @Test func updateBodyErrorsAreWrappedAndNothingIsWritten() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "refused by body" } }
        try withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            try defaults.set("kept", forKey: "k")
            let before = Fixture.contents(of: defaults.path)
            do throws(SharedDefaultsError) {
                try defaults.update { dictionary in
                    dictionary["k"] = .string("changed")
                    throw Refused()
                }
                Issue.record("update succeeded")
            } catch {
                #expect(error == .updateFailed(path: defaults.path, reason: "refused by body"))
                #expect(error.description == "\(defaults.path): update aborted, nothing written: refused by body")
            }
            #expect(Fixture.contents(of: defaults.path) == before)
            let count = try defaults.update { dictionary in dictionary.count }
            #expect(count == 1)
        }
    }

    @Test func writesLargerThanTheLimitAreRefused() throws {
        try withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container, options: .init(maxFileSize: 1024))
            #expect(throws: SharedDefaultsError.self) { try defaults.set(.data([UInt8](repeating: 1, count: 2048)), forKey: "k") }
            #expect(!FileManager.default.fileExists(atPath: defaults.path))
        }
    }

    @Test func writerReplacesAFileThatMerelyDoesNotDecode() throws {
        try withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            try defaults.set("x", forKey: "old")
            try Fixture.writeRaw(Array("garbage".utf8), to: defaults.path)
            #expect(throws: SharedDefaultsError.self) { try defaults.reload() }
            try defaults.set("y", forKey: "new")
            // The writer knows what it wrote: its own file is not read back.
            #expect(try defaults.reload() == .unchanged)
            #expect(defaults.dictionaryRepresentation() == ["new": .string("y")])
            let reader = SharedDefaults(suiteName: Fixture.suite, container: container)
            #expect(reader.dictionaryRepresentation() == ["new": .string("y")])
        }
    }

    @Test func aWriterWaitsForTheLockHolder() async throws {
        try await withTemporaryDirectory { container in
            let defaults = SharedDefaults(suiteName: Fixture.suite, container: container)
            try defaults.set(0, forKey: "k")
            let holder = try FileLock(path: defaults.lockFilePath)
            try holder.lock()
            let finished = Mutex(false)
            let thread = Thread {
                try? defaults.set(1, forKey: "k")
                finished.withLock { $0 = true }
            }
            thread.start()
            // The writer must still be blocked: its write cannot have happened while we hold the lock.
            #expect(try await eventually(timeout: .milliseconds(200)) { finished.withLock { $0 } } == false)
            #expect(SharedDefaults(suiteName: Fixture.suite, container: container).integer(forKey: "k") == 0)
            try holder.unlock()
            #expect(try await eventually(timeout: .seconds(10)) { finished.withLock { $0 } })
            #expect(SharedDefaults(suiteName: Fixture.suite, container: container).integer(forKey: "k") == 1)
        }
    }
}

/// How many `read` system calls `body` made (through the syscall seam): none for a file answered
/// from the last good read.
func fileReads(_ body: () throws -> Void) throws -> Int {
    let faults = SyscallFaults()
    try faults.withFaults { () throws -> Void in try body() }
    return faults.count(of: .read)
}
