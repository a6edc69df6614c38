import Glibc

extension FileDescriptor {
    /// Whether `rawValue` (a descriptor this process has open) is a pipe or FIFO: the one kind of
    /// output whose reader's departure `poll(2)` reports before a write fails.
    package static func isPipe(_ rawValue: CInt) -> Bool {
        (try? withUnowned(rawValue) { (descriptor: borrowing FileDescriptor) throws(Errno) in try descriptor.fstat() })?.type == .fifo
    }
}
