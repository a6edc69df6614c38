import Foundation

/// Unbuffered, whole-line writes to stdout and stderr, serialised so lines from different
/// tasks never interleave.
public enum StandardStreams {
    private static let lock = NSLock()

    /// Writes `text` to standard output in one go and flushes it (followers are read line by line).
    public static func writeOut(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Writes `text` to standard error in one go.
    public static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        lock.lock()
        defer { lock.unlock() }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0 {
                if errno == EINTR { continue }
                return  // stdout closed (EPIPE) or similar: nothing useful to do
            }
            offset += written
        }
        bytes.removeAll()
    }
}
