import Foundation
import Testing
@testable import PropertyList

/// Our binary codec against the references: Foundation's `PropertyListSerialization` both ways
/// and Python's `plistlib` both ways, on a few hundred seeded random values.
@Suite(.timeLimit(.minutes(1))) struct BinaryPropertyListDifferentialTests {
    /// `count` random values, then two deeply nested ones (`deepest` levels at most).
    static func randomValues(seed: UInt64, count: Int, millisecondDates: Bool = false, deepest: Int = 511) -> [PropertyListValue] {
        var random = RandomPropertyListValues(seed: seed)
        random.millisecondDates = millisecondDates
        var values = (0..<count).map { _ in random.value() }
        values.append(random.deeplyNested(depth: 100))
        values.append(random.deeplyNested(depth: deepest))
        return values
    }

    @Test(arguments: [UInt64(11), 22, 33, 44])
    func foundationReadsWhatWeWrite(seed: UInt64) throws {
        for (index, value) in Self.randomValues(seed: seed, count: 50).enumerated() {
            let bytes = try BinaryPropertyListEncoder.encode(value)
            let decoded = try FoundationPropertyList.decode(bytes)
            #expect(decoded == value, "seed \(seed) value \(index): Foundation read \(decoded)")
            #expect(try BinaryPropertyListDecoder.decode(bytes) == value, "seed \(seed) value \(index)")
        }
    }

    @Test(arguments: [UInt64(55), 66, 77, 88])
    func weReadWhatFoundationWrites(seed: UInt64) throws {
        for (index, value) in Self.randomValues(seed: seed, count: 50).enumerated() {
            let bytes = try FoundationPropertyList.encode(value, format: .binary)
            let decoded = try BinaryPropertyListDecoder.decode(bytes)
            #expect(decoded == value, "seed \(seed) value \(index): we read \(decoded)")
        }
    }

    @Test(arguments: [1, 100])
    func snapshotShapedDictionariesMatchFoundation(entitlements: Int) throws {
        let value = SnapshotShapedValue.make(entitlements: entitlements)
        let foundationBytes = try FoundationPropertyList.encode(value, format: .binary)
        let ours = try PropertyListCodec.decode(foundationBytes)
        #expect(ours == value)
        #expect(ours == (try FoundationPropertyList.decode(foundationBytes)))
        #expect(try FoundationPropertyList.decode(PropertyListCodec.encode(value)) == value)
    }

    /// Python reads each of our files and writes it back with its own binary writer; we read
    /// Python's files. Skipped when python3 is not installed. Python's reader recurses about
    /// three frames per level and stops at 1000, so the deepest value here has 200 levels.
    @Test func pythonPlistlibReadsOursAndWeReadPythons() throws {
        let python = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let python else { return }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bplist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let values = Self.randomValues(seed: 99, count: 60, millisecondDates: true, deepest: 200) + [SnapshotShapedValue.make(entitlements: 100)]
        var paths: [String] = []
        for (index, value) in values.enumerated() {
            let file = directory.appendingPathComponent("\(index).plist")
            try Data(BinaryPropertyListEncoder.encode(value)).write(to: file)
            paths.append(file.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            "-c",
            """
            import plistlib, sys
            for path in sys.argv[1:]:
                with open(path, 'rb') as f: value = plistlib.load(f, fmt=plistlib.FMT_BINARY)
                with open(path + '.py', 'wb') as f: plistlib.dump(value, f, fmt=plistlib.FMT_BINARY)
            """,
        ] + paths
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python failed: \(errorText)")
        for (index, value) in values.enumerated() {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: paths[index] + ".py")))
            let decoded = try BinaryPropertyListDecoder.decode(bytes)
            #expect(decoded == value, "value \(index): Python's rewrite came back as \(decoded)")
        }
    }
}
