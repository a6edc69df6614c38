// The benchmark calls the C library directly on purpose: its floors are the kernel without SystemShims.
import Glibc

/// The floor's writer: the atomic replace done with raw Glibc calls and nothing else — open a
/// temporary file, write, `fsync`, `close`, `rename`, `fsync` of the (kept open) directory. The
/// two `fsync`s are skipped when not durable. The first 8 bytes carry the generation.
final class RawFloorWriter {
    private let directory: Int32
    private let temporaryName: String
    private let name: String
    private let durable: Bool
    private var payload: [UInt8]

    /// - Parameter size: bytes per file (the size of the package's file, so both move as much data).
    init(directory path: String, name: String, size: Int, durable: Bool) throws(BenchmarkError) {
        directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw .system("open", path: path) }
        self.name = name
        temporaryName = "." + name + ".floor-tmp"
        self.durable = durable
        payload = [UInt8](repeating: 0x2E, count: max(8, size))
    }

    deinit { close(directory) }

    /// Writes generation `generation`; returns the monotonic time the write started.
    func write(generation: Int64) throws(BenchmarkError) -> UInt64 {
        withUnsafeBytes(of: generation.littleEndian) { bytes in
            for index in 0..<8 { payload[index] = bytes[index] }
        }
        let start = MonotonicClock.now()
        let file = openat(directory, temporaryName, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o640)
        guard file >= 0 else { throw .system("open", path: temporaryName) }
        let written = payload.withUnsafeBytes { Glibc.write(file, $0.baseAddress, $0.count) }
        guard written == payload.count else {
            close(file)
            throw .system("write", path: temporaryName)
        }
        if durable, fsync(file) != 0 {
            close(file)
            throw .system("fsync", path: temporaryName)
        }
        close(file)
        guard renameat(directory, temporaryName, directory, name) == 0 else { throw .system("rename", path: name) }
        if durable, fsync(directory) != 0 { throw .system("fsync directory") }
        return start
    }
}
