import Glibc
import Synchronization

/// Signals delivered to this process, handed to the threads that listen for them through a pipe,
/// so that a thread waiting in `poll(2)` on its descriptors notices a signal among them, without
/// any thread of its own and without blocking signals in every thread.
///
/// While at least one ``SignalListener`` listens for a signal, a handler installed with
/// `sigaction(2)` (`SA_RESTART`, so the system calls of the thread it lands on resume) writes the
/// signal's number to the process's relay pipe; the previous disposition comes back when the last
/// listener of the signal stops. The pipe is made at the first listen and stays open for the
/// process's life: a handler running on another thread must never write to a descriptor closed
/// and perhaps reused meanwhile. The handler does only what is async-signal-safe: it loads the
/// pipe's number, writes one byte (a full pipe drops it) and keeps `errno`.
package enum SignalRelay {
    private struct Listening {
        var listener: SignalListener
        var signals: [CInt]
    }

    /// A signal listened for: how many listeners want it and the disposition it had.
    private struct Installed {
        var signal: CInt
        var count: Int
        var previous: sigaction
    }

    /// A process listens for a handful of signals with a handful of listeners: both are lists,
    /// searched in order.
    private struct State {
        var listeners: [Listening] = []
        var installed: [Installed] = []
        /// The relay pipe's read end, once made.
        var readEnd: CInt?
    }

    private static let state = Mutex(State())

    /// The read end of the relay pipe, to poll for input; `nil` before the first listen.
    package static var readDescriptor: CInt? { state.withLock { $0.readEnd } }

    /// Makes the relay pipe unless the process has it, and returns its read end, to poll.
    /// - Throws: the `errno` of `pipe2` (`EMFILE`).
    package static func prepare() throws(Errno) -> CInt {
        try state.withLock { state throws(Errno) in try prepare(&state) }
    }

    private static func prepare(_ state: inout State) throws(Errno) -> CInt {
        if let readEnd = state.readEnd { return readEnd }
        let pipe = try FileDescriptor.pipe(nonBlocking: true)
        let readEnd = pipe.readEnd.release()
        relayWriteDescriptor.store(pipe.writeEnd.release(), ordering: .releasing)
        state.readEnd = readEnd
        return readEnd
    }

    /// Starts handing `signals` to `listener` (on whichever thread calls ``deliverPending()``).
    /// - Throws: the `errno` of `pipe2` (`EMFILE`) when the relay pipe cannot be made.
    static func add(_ listener: SignalListener, signals: [SignalNumber]) throws(Errno) {
        try state.withLock { state throws(Errno) in
            _ = try prepare(&state)
            var numbers: [CInt] = []
            for signal in signals where !numbers.contains(signal.rawValue) { numbers.append(signal.rawValue) }
            state.listeners.append(Listening(listener: listener, signals: numbers))
            for signal in numbers {
                if let index = state.installed.firstIndex(where: { $0.signal == signal }) {
                    state.installed[index].count += 1
                    continue
                }
                var action = sigaction()
                action.__sigaction_handler.sa_handler = relaySignal
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                var previous = sigaction()
                sigaction(signal, &action, &previous)
                state.installed.append(Installed(signal: signal, count: 1, previous: previous))
            }
        }
    }

    /// Stops handing signals to `listener`; a signal nobody listens for any more gets back the
    /// disposition it had before the first listen.
    static func remove(_ listener: SignalListener) {
        state.withLock { state in
            guard let position = state.listeners.firstIndex(where: { $0.listener === listener }) else { return }
            for signal in state.listeners.remove(at: position).signals {
                guard let index = state.installed.firstIndex(where: { $0.signal == signal }) else { continue }
                if state.installed[index].count > 1 {
                    state.installed[index].count -= 1
                    continue
                }
                var previous = state.installed.remove(at: index).previous
                sigaction(signal, &previous, nil)
            }
        }
    }

    /// Reads every signal number waiting in the relay pipe and hands each, in arrival order, to
    /// every listener listening for it. Any thread may call it; concurrent callers take turns,
    /// and one that finds the pipe already emptied hands on nothing.
    package static func deliverPending() {
        state.withLock { state in
            guard let readEnd = state.readEnd else { return }
            var buffer = [UInt8](repeating: 0, count: 64)
            while true {
                let count = buffer.withUnsafeMutableBytes { bytes in
                    FileDescriptor.withUnowned(readEnd) { (descriptor: borrowing FileDescriptor) in (try? descriptor.read(into: bytes)) ?? 0 }
                }
                guard count > 0 else { return }
                for byte in buffer[..<count] {
                    let signal = CInt(byte)
                    for listening in state.listeners where listening.signals.contains(signal) {
                        listening.listener.deliver(SignalNumber(rawValue: signal))
                    }
                }
            }
        }
    }
}

/// One party listening for signals through the ``SignalRelay``: from ``listen(_:deliver:)`` until
/// ``stop()`` (or its end), every signal it asked for that arrives is handed to its `deliver`,
/// once per arrival (arrivals the kernel merged while the signal was pending count once).
package final class SignalListener: Sendable {
    fileprivate let deliver: @Sendable (SignalNumber) -> Void

    private init(deliver: @escaping @Sendable (SignalNumber) -> Void) {
        self.deliver = deliver
    }

    /// Starts listening for `signals`; `deliver` runs on the thread that calls
    /// ``SignalRelay/deliverPending()``, with the relay's lock held, so it must be quick.
    /// - Throws: the `errno` of `pipe2` (`EMFILE`) when the process's relay pipe cannot be made.
    package static func listen(_ signals: [SignalNumber], deliver: @escaping @Sendable (SignalNumber) -> Void) throws(Errno) -> SignalListener {
        let listener = SignalListener(deliver: deliver)
        try SignalRelay.add(listener, signals: signals)
        return listener
    }

    /// Stops listening. Idempotent.
    package func stop() {
        SignalRelay.remove(self)
    }
}

/// The relay pipe's write end, for the handler; -1 until the pipe is made.
private let relayWriteDescriptor = Atomic<CInt>(-1)

/// The handler of every relayed signal: writes its number to the relay pipe, past the fault seam
/// on purpose (the seam's task-local lookup is not async-signal-safe).
private func relaySignal(_ signal: CInt) {
    let descriptor = relayWriteDescriptor.load(ordering: .acquiring)
    guard descriptor >= 0 else { return }
    let savedErrno = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = Glibc.write(descriptor, &byte, 1)
    errno = savedErrno
}
