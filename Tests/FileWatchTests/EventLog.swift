import FileWatch
import Synchronization

/// Events recorded by a consuming task, with a way to wait (up to a deadline) for a condition on them.
final class EventLog: Sendable {
    private struct Waiter {
        let predicate: @Sendable ([FileWatchEvent]) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var events: [FileWatchEvent] = []
        var ended = false
        var failure: FileWatchError?
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
    }

    private let state = Mutex(State())

    var events: [FileWatchEvent] { state.withLock { $0.events } }
    var failure: FileWatchError? { state.withLock { $0.failure } }

    func append(_ event: FileWatchEvent) {
        let satisfied = state.withLock { state in
            state.events.append(event)
            let events = state.events
            let ready = state.waiters.filter { $0.value.predicate(events) }
            for id in ready.keys { state.waiters[id] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in satisfied { continuation.resume(returning: true) }
    }

    /// The sequence ended, with `failure` if it threw. Pending waits give up.
    func end(failure: FileWatchError?) {
        let waiting = state.withLock { state in
            state.ended = true
            state.failure = failure
            defer { state.waiters.removeAll() }
            return state.waiters.values.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    /// Waits until `predicate` holds for the recorded events, at most `timeout`.
    /// - Returns: whether it held before the deadline.
    func wait(
        timeout: Duration = .seconds(10),
        until predicate: @escaping @Sendable ([FileWatchEvent]) -> Bool
    ) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.waitWithoutDeadline(predicate) }
            group.addTask {
                try? await Task.sleep(for: timeout)  // the deadline, not a synchronisation
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func waitWithoutDeadline(_ predicate: @escaping @Sendable ([FileWatchEvent]) -> Bool) async -> Bool {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let immediate: Bool? = state.withLock { state in
                    if predicate(state.events) { return true }
                    if state.ended || Task.isCancelled { return false }
                    state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(returning: false)
        }
    }
}

extension FileWatchEvent {
    /// The names of a `changed` event; empty for the others.
    var changedNames: Set<String> {
        if case .changed(let names) = self { names } else { [] }
    }
}

extension [FileWatchEvent] {
    /// Whether some event at or after `start` reported `name` as changed.
    func reports(_ name: String, from start: Int = 0) -> Bool {
        count > start && self[start...].contains { $0.changedNames.contains(name) }
    }

    /// Whether `event` occurs at or after `start`.
    func contains(_ event: FileWatchEvent, from start: Int) -> Bool {
        count > start && self[start...].contains(event)
    }
}
