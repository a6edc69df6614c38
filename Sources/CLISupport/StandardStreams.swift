import Glibc
import Synchronization

/// Unbuffered, whole-line writes to stdout and stderr, serialised so lines from different
/// tasks never interleave.
public enum StandardStreams {
    private static let lock = Mutex(())

    /// Writes `text` to standard output in one go and flushes it (followers are read line by line).
    public static func writeOut(_ text: String) { write(text, to: STDOUT_FILENO) }

    /// Writes `text` to standard error in one go.
    public static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        lock.withLock { _ in
            text.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return  // stdout closed (EPIPE) or similar: nothing useful to do
                    }
                    offset += written
                }
            }
        }
    }
}
