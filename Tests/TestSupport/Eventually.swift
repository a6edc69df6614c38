import Foundation

/// Polls `condition` every `interval` until it returns `true` or `timeout` has passed (measured
/// on the continuous clock). This waits for a state with a deadline; it is not a sleep used as
/// synchronisation.
///
/// - Returns: `true` as soon as the condition holds, `false` if the deadline passed first (so a
///   test can `#expect(try await eventually(...))` and fail instead of hanging).
/// - Throws: whatever `condition` throws, or `CancellationError` if the task is cancelled.
public func eventually(
    timeout: Duration = .seconds(10), interval: Duration = .milliseconds(10),
    _ condition: () throws -> Bool
) async throws -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
        if try condition() { return true }
        if clock.now >= deadline { return false }
        try await clock.sleep(for: interval)
    }
}

/// Polls `condition` every `interval` on a thread of its own until it returns `true` or `timeout`
/// has passed, and returns which. For a condition that holds only briefly (a child process that
/// lives a few hundred milliseconds) or whose timing is measured: in a full test run the
/// concurrency pool can be kept busy by other tests for longer than that, so ``eventually`` may
/// not look in time. `condition` runs on that thread only.
public func eventuallyOnOwnThread(
    timeout: Duration = .seconds(10), interval: Duration = .milliseconds(2),
    _ condition: @escaping @Sendable () -> Bool
) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: timeout)
            while !condition() {
                if clock.now >= deadline { return continuation.resume(returning: false) }
                Thread.sleep(forTimeInterval: Double(interval.components.attoseconds) / 1e18 + Double(interval.components.seconds))
            }
            continuation.resume(returning: true)
        }.start()
    }
}
