import Synchronization

/// A one-shot gate: tasks waiting on it resume once it is opened, or when they are cancelled.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let alreadyOpen = state.withLock { state in
                    if state.open { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if alreadyOpen { continuation.resume() }
            }
        } onCancel: {
            open()
        }
    }

    /// Waits for the gate to open, at most `timeout`. Returns whether it opened in time.
    func wait(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.wait()
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)  // the deadline
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }
}
