import Entitlements
import Foundation
import PropertyList
import EntitlementDefaults
import SharedDefaults
import TestSupport
import Testing

/// ``SnapshotReader`` decodes only the snapshot from the file's bytes; these check that it still
/// refuses and accepts what a plain ``SharedDefaults`` does, with the same messages.
@Suite(.timeLimit(.minutes(1))) struct SnapshotReaderDecodingTests {
    /// Suite files whose bytes are refused as a whole.
    enum UndecodableFile: String, CaseIterable, Sendable {
        case truncated, garbage, rootIsArray, rootIsString, emptyFile

        func bytes() throws -> [UInt8] {
            let good = try Fixture.bytes(of: Fixture.snapshot(generation: 9))
            switch self {
            case .truncated: return Array(good[..<(good.count - 9)])
            case .garbage: return Array("bplist00 not really".utf8)
            case .rootIsArray: return try PropertyListCodec.encode(.array([Fixture.snapshot(generation: 9).propertyList]))
            case .rootIsString: return try PropertyListCodec.encode(.string("snapshot"))
            case .emptyFile: return []
            }
        }
    }

    @Test(arguments: UndecodableFile.allCases)
    func aRefusedFileGivesTheMessageSharedDefaultsGives(file: UndecodableFile) throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.publish(Fixture.snapshot(generation: 5))
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            #expect(reader.refresh() == .updated(Fixture.snapshot(generation: 5)))

            try Fixture.writeRaw(file.bytes(), to: writer.path)
            let plain = SharedDefaults(suiteName: Fixture.suite, container: container)
            let expected = try #require(plain.reloadError())
            #expect(reader.refresh() == .rejected(reason: expected.description, lastGood: Fixture.snapshot(generation: 5)))
            // The same unchanged bad file is refused again with the same message.
            #expect(reader.refresh() == .rejected(reason: expected.description, lastGood: Fixture.snapshot(generation: 5)))
        }
    }

    @Test(arguments: [PropertyListCodec.Format.binary, .xml])
    func theSnapshotIsReadAmongOtherValues(format: PropertyListCodec.Format) throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            let snapshot = Fixture.snapshot(generation: 4)
            let contents: PropertyListDictionary = [
                "aaa": .array([.integer(1), .real(2.5), .boolean(true), .data([0, 1, 2]), .date(Date(timeIntervalSince1970: 0))]),
                "названия": .string("ünïcödé ✓"),
                "nested": .dictionary(["inner": .dictionary(["deeper": .string("x")])]),
                EntitlementSnapshot.defaultsKey: snapshot.propertyList,
                "zzz": .string(String(repeating: "long ", count: 100)),
            ]
            try writer.set("placeholder", forKey: "zzz")  // creates the preferences directory
            try Fixture.writeRaw(PropertyListCodec.encode(.dictionary(contents), format: format), to: writer.path)
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            #expect(reader.refresh() == .updated(snapshot))
            #expect(reader.refresh() == .unchanged(snapshot))
        }
    }

    @Test func anInvalidSnapshotInAGoodFileIsRefusedOnceThenUnchanged() throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: Fixture.suite, container: container)
            try writer.publish(Fixture.snapshot(generation: 5))
            let reader = SnapshotReader(suiteName: Fixture.suite, container: container)
            #expect(reader.refresh() == .updated(Fixture.snapshot(generation: 5)))

            var broken = try #require(Fixture.snapshot(generation: 6).propertyList.dictionaryValue)
            broken["generation"] = .string("six")
            try writer.set(.dictionary(broken), forKey: EntitlementSnapshot.defaultsKey)
            let refusal: SnapshotDecodingError
            do throws(SnapshotDecodingError) {
                let decoded = try EntitlementSnapshot(propertyList: .dictionary(broken))
                Issue.record("a snapshot with a string generation decoded: \(decoded)")
                return
            } catch {
                refusal = error
            }
            let good = Fixture.snapshot(generation: 5)
            #expect(reader.refresh() == .rejected(reason: "\(writer.path): snapshot refused: \(refusal.description)", lastGood: good))
            // The file itself was good: it is not read again until it changes.
            #expect(reader.refresh() == .unchanged(good))
            try writer.publish(Fixture.snapshot(generation: 7))
            #expect(reader.refresh() == .updated(Fixture.snapshot(generation: 7)))
        }
    }
}

extension SharedDefaults {
    /// What ``reload()`` throws, or `nil` when it does not.
    fileprivate func reloadError() -> SharedDefaultsError? {
        do {
            _ = try reload()
            return nil
        } catch {
            return error
        }
    }
}
