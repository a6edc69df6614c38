import Glibc

/// A detached POSIX thread running one closure to its end: the small part of Foundation's
/// `Thread` the package needs, without loading Foundation.
///
/// Nobody joins the thread; whatever it must report, it reports through state the closure
/// captures. The thread keeps the closure (and what it captures) alive until the closure returns.
package enum DetachedThread {
    /// Starts `body` on a new detached thread.
    ///
    /// - Throws: ``Errno`` when the thread cannot be created (`EAGAIN`: a thread or memory limit).
    package static func start(_ body: @escaping @Sendable () -> Void) throws(Errno) {
        #if ENABLE_MOCKING
        // The thread fails the same system calls as the task that started it.
        let faults = SyscallFaults.current
        let body: @Sendable () -> Void = { SyscallFaults.$current.withValue(faults) { body() } }
        #endif
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let body = Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue()
            body.body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(box).release()
            throw Errno(rawValue: result)
        }
    }
}

/// What a ``DetachedThread`` runs, handed to the new thread as an owned reference.
private final class ThreadBody: Sendable {
    let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }
}
