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
