import Foundation
import Testing
@testable import PropertyList

/// Python's `plistlib` as a second, independent reader and writer of our files.
@Suite(.timeLimit(.minutes(1))) struct BinaryPropertyListPythonTests {
    /// Python reads each of our files and writes it back with its own binary writer; we read
    /// Python's files. python3 is on every machine of this project's kind, so its absence fails
    /// the test rather than passing it unseen. Python's reader recurses about
    /// three frames per level and stops at 1000, so the deepest value here has 200 levels.
    @Test func pythonPlistlibReadsOursAndWeReadPythons() throws {
        let found = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        let python = try #require(found, "python3 not found: this test needs plistlib as a second reader")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bplist-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let values = BinaryPropertyListDifferentialTests.randomValues(seed: 99, count: 60, millisecondDates: true, deepest: 200)
            + [SnapshotShapedValue.make(entitlements: 100), SnapshotShapedValue.withBootReading(SnapshotShapedValue.make(entitlements: 3))]
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
