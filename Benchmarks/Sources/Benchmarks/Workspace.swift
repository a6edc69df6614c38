import Foundation
// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// The benchmark's scratch directories and what file system they are on.
enum Workspace {
    /// A new private directory `entitlement-bench-XXXXXX` under `parent`.
    static func make(under parent: String) throws(BenchmarkError) -> String {
        var template = Array((parent + "/entitlement-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw .system("mkdtemp", path: parent) }
        return String(cString: made)
    }

    /// Creates `path` and its parents with mode 0750.
    static func makeDirectories(_ path: String) throws(BenchmarkError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o750])
        } catch {
            throw BenchmarkError("create \(path): \(error.localizedDescription)")
        }
    }

    /// `path (fs-type)`, with the type from `statfs`.
    static func describe(_ path: String) -> String {
        "\(path) (\(fileSystem(of: path)))"
    }

    /// The type of the file system `path` is on, from the longest matching mount point in
    /// `/proc/mounts` (for example `ext4` or `tmpfs`).
    static func fileSystem(of path: String) -> String {
        guard let mounts = try? String(contentsOfFile: "/proc/mounts", encoding: .utf8) else { return "unknown" }
        var best = (point: "", type: "unknown")
        for line in mounts.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            let point = String(fields[1]), type = String(fields[2])
            let matches = point == "/" || path == point || path.hasPrefix(point + "/")
            if matches, point.count >= best.point.count { best = (point, type) }
        }
        return best.type
    }
}
