import SystemShims
import Synchronization

/// Unbuffered, whole-line writes to stdout and stderr, serialised so lines from different
/// tasks never interleave.
public enum StandardStreams {
    private static let lock = Mutex(())

    /// Writes `text` to standard output in one go and flushes it (followers are read line by line).
    public static func writeOut(_ text: String) { write(text, to: FileDescriptor.standardOutput) }

    /// Writes `text` to standard error in one go.
    public static func writeError(_ text: String) { write(text, to: FileDescriptor.standardError) }

    private static func write(_ text: String, to descriptor: CInt) {
        var text = text
        lock.withLock { _ in
            text.withUTF8 { bytes in
                FileDescriptor.withUnowned(descriptor) { (stream: borrowing FileDescriptor) in
                    // stdout closed (EPIPE) or similar: nothing useful to do. (Not `try?`, whose
                    // `Optional<Void>` would have its metadata built at the first write.)
                    do { try stream.writeAll(UnsafeRawBufferPointer(bytes)) } catch {}
                }
            }
        }
    }
}
