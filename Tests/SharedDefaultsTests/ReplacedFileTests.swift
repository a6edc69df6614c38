import Foundation
import Glibc
import SharedDefaults
import SystemShims
import TestSupport
import Testing

/// Who frees a replaced suite file. Readers keep the file they last read open until they read
/// the next; the writer keeps the file its last publish replaced open until its next publish
/// has renamed a new one in, so a reader is never the one that frees it (that work, the file's
/// pages and on a durable file system its truncation, then falls on the writer after its rename,
/// as it does for a plain `rename` over a file, not on a reader on its way to a new entry).
@Suite(.timeLimit(.minutes(1))) struct ReplacedFileTests {
    /// Device and inode of every removed (replaced) file under `directory` this process still
    /// has open. Only removed ones: a freed inode's number may be reused at once by a new file.
    static func openFiles(under directory: String) -> Set<[UInt64]> {
        var files = Set<[UInt64]>()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            let link = "/proc/self/fd/" + name
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: link), target.hasPrefix(directory + "/"), target.hasSuffix(" (deleted)") else {
                continue
            }
            var status = stat()
            if stat(link, &status) == 0 { files.insert([UInt64(status.st_dev), UInt64(status.st_ino)]) }
        }
        return files
    }

    static func identity(of path: String) throws -> [UInt64] {
        var status = stat()
        try #require(lstat(path, &status) == 0)
        return [UInt64(status.st_dev), UInt64(status.st_ino)]
    }

    @Test("A reader that moves on to the new file does not free the one it replaced; the writer's next publish does")
    func theWriterFreesTheFileItReplaced() throws {
        try withTemporaryDirectory { container in
            let writer = SharedDefaults(suiteName: "group.test", container: container, options: .init(durable: false))
            let reader = SharedDefaults(suiteName: "group.test", container: container)
            try writer.set(1, forKey: "generation")
            let first = try Self.identity(of: writer.path)
            #expect(try reader.reload() == .changed)
            try writer.set(2, forKey: "generation")
            #expect(try reader.reload() == .changed)  // lets go of the first file
            #expect(Self.openFiles(under: container).contains(first), "the reader was the last to hold the replaced file")
            try writer.set(3, forKey: "generation")
            #expect(!Self.openFiles(under: container).contains(first), "the writer keeps more than the last replaced file")
            #expect(reader.integer(forKey: "generation") == 3)
        }
    }
}
