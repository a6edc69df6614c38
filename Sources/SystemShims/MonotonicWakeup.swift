import Glibc

/// A counting wake-up for one waiting thread, like a semaphore, whose timed wait is measured on
/// the monotonic clock (a condition variable set to `CLOCK_MONOTONIC`). Setting the wall clock
/// back therefore never lengthens a wait, as it does a `DispatchSemaphore`'s, which libdispatch
/// waits for with `sem_timedwait` at an absolute wall-clock time. Holds no descriptor.
package final class MonotonicWakeup: @unchecked Sendable {
    // Both live at fixed addresses for the object's life, as pthreads requires; `pending` is
    // read and written only with `mutex` held.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var pending = 0

    /// A wake-up with no signal pending.
    package init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Adds one signal: the next (or current) ``wait(timeoutSeconds:)`` returns `true`.
    package func signal() {
        pthread_mutex_lock(mutex)
        pending += 1
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Takes one signal, waiting for it at most `timeoutSeconds` (`nil`: without limit); `false`
    /// when the time passed first.
    package func wait(timeoutSeconds: Double?) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var deadline = timespec()
        if let timeoutSeconds {
            clock_gettime(CLOCK_MONOTONIC, &deadline)
            let nanoseconds = Int(min(max(0, timeoutSeconds), 1e9) * 1e9) + deadline.tv_nsec
            deadline.tv_sec += nanoseconds / 1_000_000_000
            deadline.tv_nsec = nanoseconds % 1_000_000_000
        }
        while pending == 0 {
            if timeoutSeconds == nil {
                pthread_cond_wait(condition, mutex)
            } else if pthread_cond_timedwait(condition, mutex, &deadline) == ETIMEDOUT, pending == 0 {
                return false
            }
        }
        pending -= 1
        return true
    }
}
