import Glibc

/// Ending this process from any thread.
package enum ProcessExit {
    /// Ends the process with `status` the ordinary way (`exit(3)`): `atexit` handlers run and
    /// the C library's buffered streams are flushed. For the end of a command-line tool's main
    /// flow; see ``immediately(status:)`` for a process that may have a thread stuck.
    package static func normally(status: Int32) -> Never {
        exit(status)
    }

    /// Ends the process at once with `status` (`_exit(2)`): no atexit handlers, no stdio
    /// flush, nothing else runs. For a process that must stop while another of its threads is
    /// stuck (in a write to a dying disk) and might hold a lock that a clean exit would need;
    /// write what must be said with a direct `write(2)` first.
    package static func immediately(status: Int32) -> Never {
        _exit(status)
    }

    /// Ends the process as `signal`'s default action does (its parent sees it killed by
    /// `signal`): the default disposition restored, the signal raised and unblocked.
    package static func terminate(by signal: SignalNumber) -> Never {
        var only = sigset_t()
        sigemptyset(&only)
        sigaddset(&only, signal.rawValue)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = SIG_DFL
        sigemptyset(&action.sa_mask)
        sigaction(signal.rawValue, &action, nil)
        raise(signal.rawValue)
        pthread_sigmask(SIG_UNBLOCK, &only, nil)
        // Only for a signal whose default action does not end the process.
        _exit(128 + signal.rawValue)
    }
}
