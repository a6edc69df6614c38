import SystemShims
import Synchronization

/// Unbuffered, whole-line writes to stdout and stderr, serialised so lines from different
/// tasks never interleave.
package enum StandardStreams {
    private static let lock = Mutex(())

    /// Writes `text` to standard output in one go and flushes it (followers are read line by line).
    /// Returns why the write failed (`EPIPE`: the reader closed the pipe), or `nil`; a command
    /// whose job is its output ends on a failure, others carry on.
    @discardableResult
    package static func writeOut(_ text: String) -> Errno? { write(text, to: FileDescriptor.standardOutput) }

    /// Writes `text` to standard error in one go. A failure (stderr closed) is ignored: nothing
    /// stops because its log cannot be written.
    package static func writeError(_ text: String) { _ = write(text, to: FileDescriptor.standardError) }

    private static func write(_ text: String, to descriptor: CInt) -> Errno? {
        var text = text
        return lock.withLock { _ in
            text.withUTF8 { bytes in
                FileDescriptor.withUnowned(descriptor) { (stream: borrowing FileDescriptor) -> Errno? in
                    // Not `try?`, whose `Optional<Void>` would have its metadata built at the first write.
                    do throws(Errno) { try stream.writeAll(UnsafeRawBufferPointer(bytes)) } catch { return error }
                    return nil
                }
            }
        }
    }
}
