/// Overwriting secrets with zeros once they are no longer needed, so a later read of freed memory
/// (a heap dump, a core file, a bug elsewhere in the process) does not find them.
///
/// What Swift can and cannot guarantee: the writes here go through a pointer in a function that is
/// never inlined, so the optimiser cannot see that nobody reads the zeros and drop them, and they
/// happen before the memory is released. Swift has no `memset_s`/`explicit_bzero` guarantee, though,
/// and nothing here reaches copies the program made on the way: values the compiler kept in
/// registers or spilled to the stack, an array's old buffer left behind when it grew, a
/// copy-on-write duplicate, or pages the kernel swapped out. Callers therefore keep secrets in
/// storage of a fixed size that they own (``SecretBytes``, or an array whose count never changes)
/// and zero it as soon as they are done.
public enum Zeroization {
    /// Writes zeros over every byte of `buffer`.
    @inline(never)
    public static func overwrite(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in buffer.indices { buffer[index] = 0 }
    }

    /// Writes zeros over every byte of `bytes`, in place (its count is unchanged).
    @inline(never)
    public static func overwrite(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { overwrite($0) }
    }
}
