import Entitlements
import Foundation
import PropertyList
import ServiceRuntime
import EntitlementDefaults
import SharedDefaults
import TestSupport
import Testing

/// Every hostile shared file, end to end through the real tools: refused with exit 65 and one
/// line naming the file, nothing unlocked, the reader's last good snapshot kept.
@Suite("Hostile shared files", .serialized, .timeLimit(.minutes(1)))
struct SharedFileCorpusTests {
    @Test("The corpus is there and large enough")
    func corpusSize() {
        #expect(Corpus.sharedFiles.count >= 40, "found \(Corpus.sharedFiles.count) in \(Corpus.root)/shared-files")
        // Each folder on its own: an empty one would make its parameterised test run no case at all.
        #expect(Corpus.eventFiles.count >= 40, "found \(Corpus.eventFiles.count) in \(Corpus.root)/events")
        #expect(Corpus.catalogFiles.count >= 30, "found \(Corpus.catalogFiles.count) in \(Corpus.root)/catalogs")
    }

    @Test("Refused by status (65), locked for check and the widget, last good kept", arguments: Corpus.sharedFiles)
    func corpusFile(name: String) async throws {
        try await HostileContainer.with { fixture in
            let reader = SnapshotReader(suiteName: fixture.group, container: fixture.container)
            try fixture.publishGood(generation: 5)
            #expect(reader.refresh().snapshot?.generation == 5)

            try fixture.installCorpusFile(name)
            try await Self.expectRefusedEverywhere(fixture, reader: reader)
        }
    }

    /// Files and directories that are hostile by kind rather than content, made at run time.
    enum SpecialKind: String, CaseIterable, Sendable {
        case symlinkToGoodFile, symlinkedPreferencesDirectory, directory, fifo, foreignOwner, worldWritableFile
        case worldWritableDirectory, overSizeCap, sparseHugeFile
    }

    @Test("Refused by kind: symlink, directory, FIFO, foreign owner, world-writable, over the cap", arguments: SpecialKind.allCases)
    func specialKind(kind: SpecialKind) async throws {
        try await HostileContainer.with { fixture in
            let reader = SnapshotReader(suiteName: fixture.group, container: fixture.container)
            try fixture.publishGood(generation: 5)
            #expect(reader.refresh().snapshot?.generation == 5)
            try Self.make(kind, in: fixture)
            // Directory-level refusals name the preferences directory rather than the file.
            let named = [.symlinkedPreferencesDirectory, .worldWritableDirectory].contains(kind) ? "Library/Preferences" : fixture.layout.sharedFileName
            try await Self.expectRefusedEverywhere(fixture, reader: reader, naming: named)
        }
    }

    /// Turns the good shared file of `fixture` into the hostile `kind`.
    static func make(_ kind: SpecialKind, in fixture: HostileContainer) throws {
        let good = try Data(contentsOf: URL(fileURLWithPath: fixture.sharedFile))
        let elsewhere = fixture.root + "/elsewhere.plist"
        try good.write(to: URL(fileURLWithPath: elsewhere))
        switch kind {
        case .symlinkToGoodFile:
            try FileManager.default.removeItem(atPath: fixture.sharedFile)
            try #require(symlink(elsewhere, fixture.sharedFile) == 0)
        case .symlinkedPreferencesDirectory:
            let real = fixture.root + "/real-preferences"
            try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
            try good.write(to: URL(fileURLWithPath: real + "/" + fixture.layout.sharedFileName))
            try FileManager.default.removeItem(atPath: fixture.preferences)
            try #require(symlink(real, fixture.preferences) == 0)
        case .directory:
            try FileManager.default.removeItem(atPath: fixture.sharedFile)
            try FileManager.default.createDirectory(atPath: fixture.sharedFile, withIntermediateDirectories: false)
        case .fifo:
            try FileManager.default.removeItem(atPath: fixture.sharedFile)
            try #require(mkfifo(fixture.sharedFile, 0o640) == 0)
        case .foreignOwner:
            // Tests run as root here; as another user chown fails and the case cannot be made.
            try #require(chown(fixture.sharedFile, 65534, 65534) == 0, "chown needs root (errno \(errno))")
        case .worldWritableFile:
            try #require(chmod(fixture.sharedFile, 0o666) == 0)
        case .worldWritableDirectory:
            try #require(chmod(fixture.preferences, 0o777) == 0)
        case .overSizeCap:
            // A well-formed suite whose foreign key pads it past the 1 MiB cap.
            let snapshot = HostileContainer.unlockedSnapshot(generation: 9)
            let bytes = try PropertyListCodec.encode(.dictionary([
                EntitlementSnapshot.defaultsKey: snapshot.propertyList, "padding": .data([UInt8](repeating: 0x41, count: (1 << 20) + 1)),
            ]))
            try fixture.install(bytes)
        case .sparseHugeFile:
            // 16 GiB claimed by a sparse file: refused on its size, never read.
            try fixture.install([UInt8](good))
            try #require(truncate(fixture.sharedFile, 16 << 30) == 0)
        }
    }

    /// The shared file of `fixture` is hostile: every tool refuses it, fails closed, and `reader`
    /// (which had a good generation) keeps that one.
    static func expectRefusedEverywhere(_ fixture: HostileContainer, reader: SnapshotReader, naming named: String? = nil) async throws {
        let named = named ?? fixture.layout.sharedFileName
        let lastGood = reader.lastGood
        let outcome = reader.refresh()
        guard case .rejected(let reason, let kept) = outcome else {
            Issue.record("expected a rejection, got \(outcome)")
            return
        }
        #expect(kept == lastGood && kept != nil)
        #expect(reason.contains(named), "\(reason)")
        #expect(SnapshotReader(suiteName: fixture.group, container: fixture.container).refresh().snapshot == nil)

        let status = try await BuiltTools.run("entitlementctl", ["status"] + fixture.common)
        #expect(status.status == 65, "status: \(status.status) \(status.standardError)")
        expectOneLine(status.standardError, naming: named)
        #expect(status.standardOutput.isEmpty)

        let check = try await BuiltTools.run("entitlementctl", ["check", "widgets"] + fixture.common)
        #expect(check.status == 1, "check: \(check.status) \(check.standardError)")
        #expect(check.standardOutput.hasPrefix("locked: widgets"), "\(check.standardOutput)")
        expectOneLine(check.standardError, naming: named)

        let render = try await BuiltTools.run("widget-renderer", ["--format", "json"] + fixture.common)
        #expect(render.status == 0, "render: \(render.status) \(render.standardError)")
        expectOneLine(render.standardError, naming: named)
        let timelines = render.standardOutput.split(separator: "\n")
        #expect(!timelines.isEmpty)
        for timeline in timelines {
            let object = try JSONSerialization.jsonObject(with: Data(timeline.utf8)) as? [String: Any]
            let entries = object?["entries"] as? [[String: Any]] ?? []
            #expect(!entries.isEmpty && entries.allSatisfy { $0["locked"] as? Bool == true }, "\(timeline)")
        }
    }

    static func expectOneLine(_ text: String, naming file: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = text.split(separator: "\n")
        #expect(lines.count == 1, "expected one line: \(text)", sourceLocation: sourceLocation)
        #expect(text.contains(file), "does not name \(file): \(text)", sourceLocation: sourceLocation)
    }

    @Test("A following widget that saw an unlocked generation stays unlocked through hostile files")
    func followerKeepsLastGood() async throws {
        let representatives = [
            "truncated-binary-half.plist", "random-bytes-4k.plist", "schema-version-2.plist",
            "expires-at-absurd-year-100000.plist", "generation-as-string.plist", "empty.plist",
        ]
        try await HostileContainer.with { fixture in
            try fixture.publishGood(generation: 5)
            let output = TimestampedLines(), errors = TimestampedLines()
            let follower = try ChildProcess(
                executable: BuiltTools.path("widget-renderer"),
                arguments: fixture.common + ["--follow", "--format", "json", "--family", "systemSmall"],
                environment: BuiltTools.environment()
            ) { stream, line in
                if stream == .standardOutput { output.append(line) } else { errors.append(line) }
            }
            defer { follower.send(SIGKILL) }  // on a thrown error; after the stop below it is a no-op
            let sawUnlocked = await ChildProcess.wait(timeout: .seconds(15)) { output.all.contains { Self.isUnlocked($0.line, generation: 5) } }
            #expect(sawUnlocked, "follower never showed generation 5 unlocked: \(follower.standardOutput) \(follower.standardError)")

            for (index, name) in representatives.enumerated() {
                try fixture.installCorpusFile(name)
                let reported = await ChildProcess.wait(timeout: .seconds(10)) { errors.all.count > index }
                #expect(reported, "\(name) was not reported: \(follower.standardError)")
            }
            // Every rejection names the file and keeps generation 5; nothing ever rendered locked.
            for line in errors.all.map(\.line) {
                #expect(line.contains("ignored") && line.contains(fixture.layout.sharedFileName) && line.hasSuffix("keeping generation 5"), "\(line)")
            }
            #expect(output.all.allSatisfy { Self.isUnlocked($0.line, generation: 5) }, "\(follower.standardOutput)")
            #expect(await follower.stop() == 0)
        }
    }

    static func isUnlocked(_ line: String, generation: Int) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let entries = object["entries"] as? [[String: Any]], let first = entries.first
        else { return false }
        return object["generation"] as? Int == generation && first["locked"] as? Bool == false
    }
}
