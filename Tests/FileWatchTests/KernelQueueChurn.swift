import Foundation
import Glibc

/// The kernel's inotify queue length (`/proc/sys/fs/inotify/max_queued_events`).
func inotifyQueueLimit() throws -> Int {
    let text = try String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)
    guard let limit = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw POSIXError(.EINVAL)
    }
    return limit
}

/// Queues about twice `queueLimit` events on a watch of `directory` that nobody reads now: three per round
/// (create, close-write, delete of a `churn…` name), so the kernel reports `IN_Q_OVERFLOW`.
func overflowKernelQueue(in directory: String, queueLimit: Int) throws {
    for round in 0..<(queueLimit * 2 / 3 + 100) {
        let path = directory + "/churn\(round)"
        let descriptor = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        close(descriptor)
        unlink(path)
    }
}
