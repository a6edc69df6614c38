import Foundation
import Glibc

/// What this process holds, read from /proc/self, for leak checks.
enum ProcessResources {
    /// Open inotify instances and eventfds of this process: the only descriptors a watch opens.
    /// Counting these instead of every descriptor keeps the checks exact while other suites
    /// (which never open inotify in this process) open and close files in parallel.
    static var openDescriptorCount: Int {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return -1 }
        return entries.filter { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry) else { return false }
            return target == "anon_inode:inotify" || target == "anon_inode:[eventfd]"
        }.count
    }

    static var threadCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
    }

    /// Whether some inotify instance of this process has a watch on the inode at `path`
    /// (from the `inotify wd:… ino:<hex> …` lines of /proc/self/fdinfo).
    static func isWatched(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let inodeField = "ino:" + String(status.st_ino, radix: 16) + " "
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.contains { descriptor in
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor)
            guard target == "anon_inode:inotify",
                  let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + descriptor, encoding: .utf8)
            else { return false }
            return info.split(separator: "\n").contains { $0.hasPrefix("inotify ") && $0.contains(inodeField) }
        }
    }
}

/// Re-checks `condition` every few milliseconds until it holds or `timeout` elapses; for state that has no
/// notification (such as /proc). Returns whether it held.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}
