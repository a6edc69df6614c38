import Glibc

/// Why ``FileDescriptor/readAll(limit:)`` failed.
package enum ReadAllError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file holds more than `limit` bytes; nothing is returned.
    case exceedsLimit(limit: Int)
    /// `read(2)` failed.
    case system(Errno)

    package var description: String {
        switch self {
        case .exceedsLimit(let limit): "file is larger than the limit of \(limit) bytes"
        case .system(let errno): errno.description
        }
    }
}

extension FileDescriptor {
    /// Runs `body` with this descriptor, then closes it. A close error is thrown only if `body`
    /// succeeded; if `body` threw, its error wins and the descriptor is closed quietly.
    package consuming func closeAfter<R>(_ body: (borrowing FileDescriptor) throws(Errno) -> R) throws(Errno) -> R {
        let result = try body(self)
        try close()
        return result
    }

    /// Writes some of `bytes` (one `write(2)`) and returns how many were written; see ``writeAll(_:)``.
    package func write(_ bytes: [UInt8], retryOnInterrupt: Bool = true) throws(Errno) -> Int {
        try bytes.withUnsafeBytes { all in
            Result { () throws(Errno) in try write(all, retryOnInterrupt: retryOnInterrupt) }
        }.get()
    }

    /// Writes every byte, looping over short writes (each retried on `EINTR`). A write that
    /// fails after others succeeded throws, leaving the bytes before it written.
    package func writeAll(_ bytes: some Collection<UInt8>) throws(Errno) {
        let array = Array(bytes)
        try array.withUnsafeBytes { all in
            Result { () throws(Errno) in try writeAll(all) }
        }.get()
    }

    /// ``writeAll(_:)`` for bytes already in memory (a `String`'s UTF-8), without copying them.
    package func writeAll(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            offset += try write(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
    }

    /// Reads from the current offset to end of file.
    ///
    /// - Parameter limit: the most bytes the caller accepts; one byte more fails with
    ///   ``ReadAllError/exceedsLimit(limit:)`` (so a file that grows while being read is caught).
    package func readAll(limit: Int) throws(ReadAllError) -> [UInt8] {
        try readAll(limit: limit, startingWith: [])
    }

    /// Like ``readAll(limit:)`` for a file whose size is known (from `fstat`): the first `read`
    /// asks for `expectedSize + 1` bytes, so a file that has not changed since the `fstat` is
    /// read with exactly one `read(2)` call; a short or long first read falls back to reading
    /// until end of file.
    package func readAll(limit: Int, expectedSize: Int) throws(ReadAllError) -> [UInt8] {
        guard expectedSize > 0, expectedSize <= limit else { return try readAll(limit: limit) }
        // One byte more than expected, so a file that grew since the `fstat` is noticed; read
        // into the array itself, so the file's bytes are written to memory once.
        var failure: Errno?
        let first = [UInt8](unsafeUninitializedCapacity: expectedSize + 1) { buffer, count in
            do throws(Errno) { count = try read(into: UnsafeMutableRawBufferPointer(buffer)) } catch { failure = error }
        }
        if let failure { throw .system(failure) }
        if first.count == expectedSize { return first }
        if first.isEmpty { return first }
        return try readAll(limit: limit, startingWith: first)
    }

    private func readAll(limit: Int, startingWith initial: [UInt8]) throws(ReadAllError) -> [UInt8] {
        var bytes = initial
        if bytes.count > limit { throw .exceedsLimit(limit: limit) }
        while true {
            let want = max(1, min(64 * 1024, limit + 1 - bytes.count))
            let chunk: [UInt8]
            do { chunk = try read(upTo: want) } catch { throw .system(error) }
            if chunk.isEmpty { return bytes }
            bytes += chunk
            if bytes.count > limit { throw .exceedsLimit(limit: limit) }
        }
    }
}
