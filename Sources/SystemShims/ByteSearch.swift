import Glibc

/// Finding one byte value in memory with the C library's `memchr`, which compares many bytes per
/// instruction and is optimised even when the caller is a debug build.
package enum ByteSearch {
    /// The index in `buffer` of the first `byte` at or after `start`, or `nil` when there is none
    /// (or `start` is at or past the end).
    package static func firstIndex(of byte: UInt8, in buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        guard let base = buffer.baseAddress, start >= 0, start < buffer.count else { return nil }
        guard let found = memchr(base + start, CInt(byte), buffer.count - start) else { return nil }
        return UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
    }
}
