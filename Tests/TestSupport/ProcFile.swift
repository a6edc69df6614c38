import Glibc

/// The whole text of a `/proc` file, read until `read` returns 0: the kernel hands such a file
/// out a page per `read` and reports its size as 0, so a reader that stops at the first short
/// `read` (as `String(contentsOfFile:)` can) sees only its first ~4 KB, which for
/// `/proc/PID/maps` ends before the shared libraries of a process with a few threads.
/// Returns `nil` when the file cannot be opened or read (the process is gone).
public func procFileText(_ path: String) -> String? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count == 0 { return String(decoding: bytes, as: UTF8.self) }
        if count < 0 {
            if errno == EINTR { continue }
            return nil
        }
        bytes += chunk[..<count]
    }
}
