import SystemShims

/// Runs `body` on a thread of its own and returns its result: for code that blocks its calling
/// thread for long (a ``ServiceLoop``), which must not hold a thread of the cooperative pool.
/// The thread fails the same system calls as the calling task (`SyscallFaults`).
public func onOwnThread<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
    await withCheckedContinuation { (finished: CheckedContinuation<R, Never>) in
        do {
            try DetachedThread.start { finished.resume(returning: body()) }
        } catch {
            finished.resume(returning: body())
        }
    }
}
