import Glibc

/// Ending this process from any thread.
package enum ProcessExit {
    /// Ends the process at once with `status` (`_exit(2)`): no atexit handlers, no stdio
    /// flush, nothing else runs. For a process that must stop while another of its threads is
    /// stuck (in a write to a dying disk) and might hold a lock that a clean exit would need;
    /// write what must be said with a direct `write(2)` first.
    package static func immediately(status: Int32) -> Never {
        _exit(status)
    }
}
