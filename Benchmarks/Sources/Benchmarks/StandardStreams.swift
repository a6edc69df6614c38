// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc
import Synchronization

/// The benchmark's output: each text written whole and unbuffered, so the progress lines on
/// standard error and the result on standard output keep the order they were written in.
enum StandardStreams {
    private static let lock = Mutex(())

    static func writeOut(_ text: String) { write(text, to: STDOUT_FILENO) }

    static func writeError(_ text: String) { write(text, to: STDERR_FILENO) }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        lock.withLock { _ in
            text.withUTF8 { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0, errno == EINTR { continue }
                    // A closed stream (EPIPE) or similar: nothing useful to do.
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}

/// A command line the benchmark does not understand; it exits 64 (usage) with the message.
struct UsageError: Error {
    static let exitCode: Int32 = 64
    var message: String
    init(_ message: String) { self.message = message }
}
