import Glibc

/// Signals held back on the calling thread while it finishes something a signal must not cut
/// short: blocked (`pthread_sigmask`), so one that arrives stays pending, and readable from
/// ``descriptor`` (a `signalfd`), so the thread can notice one while it waits in `poll`.
///
/// The thread takes an arrived signal with ``takePending()`` and decides what to do, typically
/// finish its work and then ``terminate(by:)``. When the value's lifetime ends the thread's
/// previous mask is restored, and a held signal not taken is delivered then, as it would have
/// been. A signal whose disposition is "ignore" is discarded by the kernel, never held.
///
/// Blocking is per thread: a signal sent to the process is held only if every thread of the
/// process blocks it (a single-threaded tool, or one whose other threads block it too).
package struct HeldSignals: ~Copyable {
    /// The signals that end a command-line tool from its terminal or a service manager:
    /// `SIGHUP`, `SIGINT`, `SIGQUIT`, `SIGTERM`.
    package static let terminating: [SignalNumber] = [.hangup, .interrupt, .quit, .terminate]

    private let held: sigset_t
    private let previous: sigset_t
    /// Readable while one of the held signals is pending for this thread; -1 (which `poll`
    /// skips) when the C library has no `signalfd` or it failed, and then only
    /// ``takePending()`` tells.
    package let descriptor: CInt

    /// Blocks `signals` on the calling thread.
    package init(_ signals: [SignalNumber] = HeldSignals.terminating) {
        var held = sigset_t()
        sigemptyset(&held)
        for signal in signals { sigaddset(&held, signal.rawValue) }
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &held, &previous)
        self.held = held
        self.previous = previous
        // SFD_NONBLOCK and SFD_CLOEXEC have the values of O_NONBLOCK and O_CLOEXEC on Linux.
        descriptor = signalFDFunction.map { signalfd in withUnsafePointer(to: held) { signalfd(-1, $0, O_NONBLOCK | O_CLOEXEC) } } ?? -1
    }

    deinit {
        if descriptor >= 0 { _ = system_close(descriptor) }
        var previous = previous
        pthread_sigmask(SIG_SETMASK, &previous, nil)
    }

    /// A held signal that has arrived, no longer pending once taken; `nil` when none has.
    package func takePending() -> SignalNumber? {
        var held = held
        var noWait = timespec(tv_sec: 0, tv_nsec: 0)
        let signal = sigtimedwait(&held, nil, &noWait)
        return signal > 0 ? SignalNumber(rawValue: signal) : nil
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

private typealias SignalFDFunction = @convention(c) (CInt, UnsafePointer<sigset_t>, CInt) -> CInt

/// The C library's `signalfd` (Glibc's module map leaves out `sys/signalfd.h`), resolved once.
private let signalFDFunction: SignalFDFunction? = cLibraryFunction(named: "signalfd", as: SignalFDFunction.self)
