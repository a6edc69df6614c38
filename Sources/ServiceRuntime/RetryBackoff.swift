/// How long a long-running process (the daemon, a follower) waits before trying a failed step
/// again: ``initialDelay`` after the first failure, doubling with each further failure, never
/// more than ``maximumDelay``. A success resets it.
public struct RetryBackoff: Sendable {
    /// Seconds before the first retry.
    public let initialDelay: Double
    /// Longest wait between two tries, in seconds.
    public let maximumDelay: Double
    /// Failed tries since the last success.
    public private(set) var failures = 0

    public init(initialDelay: Double = 0.5, maximumDelay: Double = 5) {
        precondition(initialDelay > 0 && maximumDelay >= initialDelay)
        self.initialDelay = initialDelay
        self.maximumDelay = maximumDelay
    }

    /// Records a failed try; returns how many seconds to wait before the next one.
    public mutating func failed() -> Double {
        failures += 1
        var delay = initialDelay
        for _ in 1..<failures where delay < maximumDelay { delay *= 2 }
        return min(delay, maximumDelay)
    }

    /// Records a success; returns how many tries had failed before it (0: none, nothing to report).
    public mutating func succeeded() -> Int {
        defer { failures = 0 }
        return failures
    }
}
